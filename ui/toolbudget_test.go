package ui

import (
	"fmt"
	"strings"
	"testing"

	"latch/session"
)

// TestToolsShowsTheOfferWithTokens: /tools says how many tools the model
// is offered and the estimated tokens of their definitions, each tool's
// estimate, and /tools NAME off|on takes a server's tools out of the offer
// and back.
func TestToolsShowsTheOfferWithTokens(t *testing.T) {
	h, _ := serverHarness(t)
	tools, err := h.sess.Tools("notes")
	if err != nil || len(tools) != 2 {
		t.Fatalf("tools %v, %v", tools, err)
	}
	total := 0
	for _, tl := range tools {
		total += session.EstimateTokens(tl)
	}
	if total == 0 {
		t.Fatal("no token estimate")
	}
	last := func() string { return h.m.chat.entries[len(h.m.chat.entries)-1].text }

	h.command("/tools")
	v := last()
	for _, want := range []string{
		fmt.Sprintf("offered to the model: 2 tools, ~%d tokens of definitions (estimated: JSON bytes / 4)", total),
		fmt.Sprintf("notes__read_note [read-only] ~%d tokens", session.EstimateTokens(tools[1])),
		fmt.Sprintf("notes__delete_note [destructive] ~%d tokens", session.EstimateTokens(tools[0])),
	} {
		if !strings.Contains(v, want) {
			t.Errorf("/tools lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "max_tools") {
		t.Errorf("/tools speaks of the budget with 2 tools:\n%s", v)
	}

	h.command("/tools notes off")
	if !strings.Contains(last(), "notes: its tools are no longer offered") {
		t.Errorf("/tools notes off: %q", last())
	}
	h.command("/tools notes")
	v = last()
	for _, want := range []string{"offered to the model: 0 tools, ~0 tokens", "turned off (/tools NAME on): notes",
		"not offered (2, turned off or not in the server's tools list): notes__delete_note, notes__read_note"} {
		if !strings.Contains(v, want) {
			t.Errorf("/tools after off lacks %q:\n%s", want, v)
		}
	}
	h.command("/tools notes on")
	h.command("/tools")
	if !strings.Contains(last(), "offered to the model: 2 tools") {
		t.Errorf("/tools after on: %q", last())
	}

	for line, want := range map[string]string{
		"/tools notes maybe": "usage: /tools [NAME [off|on]]",
		"/tools notes off x": "usage: /tools [NAME [off|on]]",
		"/tools nope off":    `no server "nope"`,
		"/tools broken off":  "broken: its tools are no longer offered", // not connected: still allowed
	} {
		h.command(line)
		if !strings.Contains(last(), want) {
			t.Errorf("%s: %q, want %q in it", line, last(), want)
		}
	}
}

// TestToolsOverTheBudgetAndUnknownNames: above ollama.max_tools /tools says
// each turn offers the most relevant, and which the last request left out
// (the chat's notice only counts them); a tools list naming a tool the
// server does not have is warned of.
func TestToolsOverTheBudgetAndUnknownNames(t *testing.T) {
	o := session.ToolOffer{MaxTools: 1, Tokens: 30,
		Offered: []session.Tool{{Name: "notes__a"}, {Name: "notes__b"}},
		Unknown: map[string][]string{"notes": {"gone_tool"}}, LeftOut: []session.Tool{{Name: "notes__b"}}}
	v := offerText(o)
	for _, want := range []string{"offered to the model: 2 tools, ~30 tokens",
		"left out of the last request by ollama.max_tools (1): notes__b",
		"more than ollama.max_tools (1): each turn offers the 1 most relevant to the conversation, and any you name",
		"⚠ notes: its tools list names tools it does not have: gone_tool"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
}
