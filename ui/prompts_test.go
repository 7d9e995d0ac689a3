package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// promptHarness is a UI over a real session with one MCP server (cfg) and
// the fake Ollama, at w×h; it waits until the server's prompts are in the
// UI's list.
func promptHarness(t *testing.T, w, h int, cfg session.ServerConfig, prompts int) *harness {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261129-120000-abcdef", Servers: []session.ServerConfig{cfg}})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	sess.StartServers()
	hs := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	hs.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 && len(m.pr.list) >= prompts })
	return hs
}

// kitConfig is the in-process prompt server.
func kitConfig(srv *mcpserver.MCPServer) session.ServerConfig {
	return session.ServerConfig{Name: "kit", Transport: "inprocess", InProcess: srv}
}

// runPrompt presses Enter on a prompt command line, hands back RunPrompt's
// end, and waits for the turn.
func (h *harness) runPrompt() {
	h.t.Helper()
	for _, msg := range runCmd(h.key(tea.KeyEnter)) {
		if r, ok := msg.(promptRanMsg); ok {
			h.m.Update(r)
			if r.err != nil {
				h.t.Fatalf("%s: %v", r.name, r.err)
			}
		}
	}
	h.untilTurnDone()
}

func (h *harness) wantInput(want string) {
	h.t.Helper()
	if got := h.m.input.value(); got != want {
		h.t.Fatalf("input %q, want %q", got, want)
	}
}

// TestPromptEverythingTyped: server-everything's prompts as slash
// commands: Tab completes a prompt's name, its arguments' names and,
// through completion/complete, their values; Enter shows the card (which
// server, which prompt, the arguments) before the reply, and the model is
// sent the prompt's message.
func TestPromptEverythingTyped(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	h := promptHarness(t, 100, 40, session.ServerConfig{Name: "every", Command: bin, Args: []string{"stdio"}, Timeout: 30 * time.Second}, 4)

	h.typeText("/every:args")
	h.tab()
	h.wantInput("/every:args-prompt ")
	h.typeText("ci")
	h.tab()
	h.wantInput("/every:args-prompt city=")
	h.typeText(`"New York" `)
	if v := h.m.View(); !strings.Contains(v, "state=") {
		t.Errorf("the popup does not offer state=:\n%s", v)
	}
	h.tab()
	h.wantInput(`/every:args-prompt city="New York" state=`)
	h.typeText("NY")
	h.srv.Script(ollamatest.TextTurn("Mild, with sun."))
	h.runPrompt()
	v := allText(h.m)
	for _, want := range []string{"✦ prompt /every:args-prompt · Arguments Prompt", "city = New York", "state = NY",
		"user › What's weather in New York, NY?", "Mild, with sun."} {
		if !strings.Contains(v, want) {
			t.Errorf("chat lacks %q:\n%s", want, v)
		}
	}
	if strings.Index(v, "✦ prompt") > strings.Index(v, "Mild, with sun.") {
		t.Errorf("the card is not before the reply:\n%s", v)
	}

	// Values through completion/complete, the second narrowed by the first.
	h.typeText("/every:completable-prompt department=E")
	h.tab()
	h.wantInput("/every:completable-prompt department=Engineering ")
	h.typeText("na")
	h.tab()
	h.wantInput("/every:completable-prompt department=Engineering name=")
	h.tab()
	if v := h.m.View(); !strings.Contains(v, "name=Alice") || !strings.Contains(v, "name=Charlie") {
		t.Errorf("the popup does not show the names:\n%s", v)
	}
	h.typeText("B")
	h.tab()
	h.wantInput("/every:completable-prompt department=Engineering name=Bob ")
	h.srv.Script(ollamatest.TextTurn("Done."))
	h.runPrompt()
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if m := last[len(last)-1]; m.Content != "Please promote Bob to the head of the Engineering team." {
		t.Errorf("the model was sent %q", m.Content)
	}
}

// TestPromptErrorsAndList: a missing required argument, an unknown prompt
// and a bad line each get one error naming what is wrong; /prompts lists
// every prompt with its arguments; /help mentions prompts.
func TestPromptErrorsAndList(t *testing.T) {
	h := promptHarness(t, 100, 40, kitConfig(mcptestutil.PromptServer()), 4)
	for _, tc := range []struct{ line, want string }{
		{"/kit:weather state=NY", "/kit:weather needs city (arguments: city (required), state)"},
		{"/kit:nope", `kit has no prompt "nope" (prompts: greet, picture, team, weather)`},
		{`/kit:weather city="Paris`, "a quote is not closed"},
		{"/kit:weather Paris", `expected NAME=VALUE, got "Paris"`},
		{"/nosrv:x", `no such server: "nosrv"`},
	} {
		h.m.input.reset() // a failed command's text stays in the input
		h.typeText(tc.line)
		for _, msg := range runCmd(h.key(tea.KeyEnter)) {
			h.m.Update(msg)
		}
		if v := allText(h.m); !strings.Contains(v, tc.want) {
			t.Errorf("%s: chat lacks %q:\n%s", tc.line, tc.want, v)
		}
		if h.m.running {
			t.Fatalf("%s: still running after the error", tc.line)
		}
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
	h.command("/prompts")
	for _, want := range []string{"/kit:weather  city (required), state", "Weather: The weather in a city", "/kit:greet", "/kit:team  department (required), name (required)"} {
		if !strings.Contains(allText(h.m), want) {
			t.Errorf("/prompts lacks %q:\n%s", want, allText(h.m))
		}
	}
	h.command("/help")
	if !strings.Contains(allText(h.m)+h.m.View(), "/SERVER:PROMPT") {
		t.Errorf("/help does not mention prompts")
	}
}

// TestPromptListChangedRefreshesUI: a prompt the server adds is said, and
// Tab completes it.
func TestPromptListChangedRefreshesUI(t *testing.T) {
	srv := mcptestutil.PromptServer()
	h := promptHarness(t, 100, 40, kitConfig(srv), 4)
	srv.DeletePrompts("greet")
	h.until(func() bool { return len(h.m.pr.list) == 3 })
	if v := allText(h.m); !strings.Contains(v, "kit: prompt list changed (3 prompts; added: none; changed: none; removed: greet)") {
		t.Errorf("no notice of the change:\n%s", v)
	}
	h.typeText("/kit:g")
	h.tab()
	h.wantInput("/kit:g")
}

// TestHostilePromptsOnScreen: what a hostile server says of its prompts
// (the listing, the completion popup, completed values, the card) reaches
// the screen without an escape.
func TestHostilePromptsOnScreen(t *testing.T) {
	plant := mcptestutil.Plant("PLANTED-WORD")
	h := promptHarness(t, 140, 60, session.ServerConfig{Name: "evil", Transport: "inprocess", InProcess: mcptestutil.HostilePromptServer(plant)}, 1)
	check := func(what string) {
		t.Helper()
		for _, fr := range []string{h.m.View(), allText(h.m)} {
			if bad := mcptestutil.FirstForbidden(fr); bad != "" {
				t.Fatalf("%s: %q on screen:\n%s", what, bad, fr)
			}
		}
	}
	h.command("/prompts")
	check("/prompts")
	if !strings.Contains(allText(h.m), "PLANTED-WORD") {
		t.Errorf("/prompts does not show the description")
	}
	h.typeText("/evil:")
	check("the name popup")
	h.typeText("evil ")
	check("the argument popup")
	h.typeText("x=")
	h.tab()
	check("the completed value")
	h.m.input.reset()
	h.typeText("/evil:evil")
	h.srv.Script(ollamatest.TextTurn("ok"))
	h.runPrompt()
	check("the card")
}

// TestGoldenPrompts draws /prompts and a prompt's card at 80×24.
func TestGoldenPrompts(t *testing.T) {
	h := promptHarness(t, 80, 24, kitConfig(mcptestutil.PromptServer()), 4)
	h.command("/prompts")
	t.Run("list_80x24", func(t *testing.T) { golden.RequireEqual(t, []byte(h.m.View())) })
	h.typeText(`/kit:weather city="New York" state=NY`)
	h.srv.Script(ollamatest.TextTurn("Sunny, 21 °C."))
	h.runPrompt()
	t.Run("card_80x24", func(t *testing.T) { golden.RequireEqual(t, []byte(h.m.View())) })
}

func TestParsePromptArgs(t *testing.T) {
	got, err := parsePromptArgs(`city="New York" state=NY note='it''s' q="a \"b\" \\ c" empty=`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"city": "New York", "state": "NY", "note": "its", "q": `a "b" \ c`, "empty": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range []string{"x", "=y", `a="b`, "a=1 a=2"} {
		if _, err := parsePromptArgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if q := quoteValue(`New "York"`); q != `"New \"York\""` {
		t.Errorf("quoteValue: %s", q)
	}
}

// TestPromptQueuedDuringReply: a prompt typed while a reply runs waits
// like a message, visibly, and runs when the reply ends.
func TestPromptQueuedDuringReply(t *testing.T) {
	h := promptHarness(t, 100, 40, kitConfig(mcptestutil.PromptServer()), 4)
	h.srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("a slow answer, word by word"), Delay: 20 * time.Millisecond},
		ollamatest.TextTurn("Sunny in Paris."))
	h.typeText("hello")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.running && h.m.reply != nil })
	h.typeText("/kit:weather city=Paris")
	if cmd := h.key(tea.KeyEnter); cmd != nil {
		runCmd(cmd)
	}
	if v := allText(h.m); !strings.Contains(v, "queued (1): /kit:weather runs when this reply ends") {
		t.Fatalf("the prompt was not queued:\n%s", v)
	}
	// The reply ends; what the turn's end brings back runs the prompt.
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(0))
	defer cancel()
	for ran := false; !ran; {
		evs, ok := h.sub.Next(ctx)
		if !ok {
			t.Fatalf("the first turn did not end:\n%s", h.m.View())
		}
		h.m.update(eventsMsg{events: evs}) // keeps m.later: what the turn's end asked to run
		later := h.m.later
		h.m.later = nil
		for _, msg := range runCmd(tea.Batch(later...)) {
			if r, ok := msg.(promptRanMsg); ok {
				h.m.Update(r)
				if r.err != nil {
					t.Fatal(r.err)
				}
				ran = true
			}
		}
	}
	h.untilTurnDone()
	if v := allText(h.m); !strings.Contains(v, "Sunny in Paris.") {
		t.Errorf("the queued prompt's turn is not on screen:\n%s", v)
	}
	reqs := h.srv.Requests()
	if last := reqs[len(reqs)-1].Messages; !strings.Contains(last[len(last)-1].Content, "Paris") {
		t.Errorf("the model was not sent the prompt's message: %+v", last[len(last)-1])
	}
}
