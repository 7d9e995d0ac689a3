package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// TestAskModalExactKey: e in the box runs the call and allows these
// arguments only; the same call runs without asking, other arguments
// bring the box back.
func TestAskModalExactKey(t *testing.T) {
	h, w := toolHarness(t, permissions.Ask)
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "one")}},
		ollamatest.TextTurn("Written."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_2", "notes__write_note", "text", "one")}},
		ollamatest.TextTurn("Written again without asking."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_3", "notes__write_note", "text", "two")}},
		ollamatest.TextTurn("Not written."),
	)
	h.typeText("write one")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	if v := h.m.View(); !strings.Contains(v, "e only these arguments") {
		t.Fatalf("the box does not offer e:\n%s", v)
	}
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'e'}})
	h.untilTurnDone()
	if w.count() != 1 {
		t.Fatalf("e: %d runs", w.count())
	}

	h.command("/allow")
	if v := h.m.View(); !strings.Contains(v, `these arguments only: {"text":"one"}`) {
		t.Fatalf("/allow does not list the grant of these arguments:\n%s", v)
	}

	h.typeText("write one again")
	h.key(tea.KeyEnter)
	h.untilTurnDone()
	if w.count() != 2 || h.m.modal != nil {
		t.Fatalf("the same arguments should run without asking: %d runs", w.count())
	}

	h.typeText("write two")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	if w.count() != 2 {
		t.Fatalf("other arguments ran without asking: %d runs", w.count())
	}
	pastGuard(h.m)
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	h.untilTurnDone()
	if w.count() != 2 {
		t.Fatalf("n: %d runs", w.count())
	}
}

// TestAskModalExactServerA: on a server with approve_args "exact", the
// box says a allows these arguments, and a does just that.
func TestAskModalExactServerA(t *testing.T) {
	h, w := toolHarnessWith(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask, ExactArgs: []string{"notes"}}})
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "one")}},
		ollamatest.TextTurn("Written."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_2", "notes__write_note", "text", "two")}},
		ollamatest.TextTurn("Not written."),
	)
	h.typeText("write one")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	if v := h.m.View(); !strings.Contains(v, "a/e allow these arguments for this session") {
		t.Fatalf("the box does not say what a does here:\n%s", v)
	}
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'a'}})
	h.untilTurnDone()
	if w.count() != 1 {
		t.Fatalf("a: %d runs", w.count())
	}
	h.typeText("write two")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	if w.count() != 1 {
		t.Fatalf("other arguments ran without asking: %d runs", w.count())
	}
	pastGuard(h.m)
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	h.untilTurnDone()
}
