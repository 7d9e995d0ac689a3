package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// entriesWith is the laid-out text of the chat entries that hold s.
func entriesWith(m *Model, s string) string {
	var out []string
	for i := range m.chat.entries {
		if text := strings.Join(entryText(m, i), "\n") + "\n"; strings.Contains(text, s) {
			out = append(out, text)
		}
	}
	return strings.Join(out, "")
}

// TestGoldenTruncationWarning: the warnings of a prompt that does not fit,
// as drawn, from a real session over the fake Ollama (which cuts as the real
// server does) with a context of 256 tokens.
func TestGoldenTruncationWarning(t *testing.T) {
	h := newHarnessWith(t, 80, 30, noAutoCompact)
	h.srv.SetDefault(ollamatest.TextTurn("ok"))
	h.runSlash("/context 256")
	msg := strings.Repeat("word ", 40)
	for range 6 {
		h.send(msg)
	}
	// Before the sixth request the estimate is already over the context,
	// so the warning comes before sending; after it, the cut is seen.
	warning := entriesWith(h.m, "context too small") + entriesWith(h.m, "context full")
	if warning == "" {
		t.Fatalf("no truncation warning:\n%s", allText(h.m))
	}
	golden.RequireEqual(t, []byte(warning))
}

// TestGoldenFromTextCard: the card of a call recovered from the reply's
// text, done, as drawn.
func TestGoldenFromTextCard(t *testing.T) {
	h := screenModel(t, 80, 24, themes.Default(), "fs")
	hd := session.Header{}
	h.feed(
		&session.UserMessage{Header: hd, Turn: 1, Text: "read the notes"},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "call_t3xt0001", Server: "fs", Tool: "fs__read_file",
			Arguments: map[string]any{"path": "notes.txt"}, ReadOnly: true, FromText: true},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "call_t3xt0001", Tool: "fs__read_file", Decision: "allowed",
			By: "policy", Mode: "read_only"},
		&session.ToolResultEvent{Header: hd, Turn: 1, CallID: "call_t3xt0001", Tool: "fs__read_file", OK: true,
			DurationMS: 42, Preview: "buy milk", Size: 8},
	)
	h.m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	card := entriesWith(h.m, "fs__read_file")
	if !strings.Contains(card, "from text") {
		t.Fatalf("the card does not say the call was recovered from text:\n%s", card)
	}
	golden.RequireEqual(t, []byte(card))
}
