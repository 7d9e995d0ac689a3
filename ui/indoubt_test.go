package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/eventtest"
	"latch/session/ollamatest"
	"latch/themes"
)

// inDoubtLog writes a session log whose last call was allowed, and so
// started, but has no result: latch stopped while it ran.
func inDoubtLog(t *testing.T) (dir, id string) {
	t.Helper()
	hd := session.Header{Time: fixedNow}
	call := session.ToolCallRecord{ID: "call_d1", Function: session.ToolCallRecordFunc{Name: "notes__write_note",
		Arguments: map[string]any{"text": "hello"}}}
	evs := []session.Event{
		&session.SessionStarted{Header: hd, Model: "qwen3:8b", Host: "127.0.0.1:11434"},
		&session.UserMessage{Header: hd, Turn: 1, Text: "write a note"},
		&session.MessageEvent{Header: hd, Turn: 1, Role: "user", Content: "write a note"},
		&session.AssistantMessage{Header: hd, Turn: 1, Content: ""},
		&session.MessageEvent{Header: hd, Turn: 1, Role: "assistant", ToolCalls: []session.ToolCallRecord{call}},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "call_d1", Server: "notes", Tool: "notes__write_note",
			Arguments: map[string]any{"text": "hello"}, Destructive: true},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "call_d1", Tool: "notes__write_note", Decision: "allowed", By: "user"},
	}
	dir, id = t.TempDir(), "20261201-000000-indoubt"
	eventtest.WriteEditedLog(t, filepath.Join(dir, id+".jsonl"), evs)
	return dir, id
}

// resumedHarness resumes the in-doubt log over a fake Ollama that answers
// the turn's next round with text.
func resumedHarness(t *testing.T) *harness {
	t.Helper()
	dir, id := inDoubtLog(t)
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	ol.Script(ollamatest.TextTurn("All right."))
	sess, res, err := session.Resume(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b"}, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.InDoubt) != 1 {
		t.Fatalf("the log has %d calls in doubt, want 1", len(res.InDoubt))
	}
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1, Resumed: res,
		Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
}

// cardsOf counts the chat's cards of a call.
func cardsOf(m *Model, callID string) int {
	n := 0
	for _, e := range m.chat.entries {
		if e.kind == toolEntry && e.card.callID == callID {
			n++
		}
	}
	return n
}

// TestResumedInDoubtCallIsNotRunning: a call that was running when latch
// stopped shows as outcome unknown, not as a running card.
func TestResumedInDoubtCallIsNotRunning(t *testing.T) {
	h := resumedHarness(t)
	v := h.m.View()
	if h.m.anyRunning() || strings.Contains(v, "running") && strings.Contains(v, "notes__write_note — running") {
		t.Fatalf("the call in doubt shows as running:\n%s", v)
	}
	if cmd := h.m.maybeTick(); cmd != nil {
		t.Fatal("the spinner animates a call in doubt")
	}
	en := h.m.cards["call_d1"]
	if en == nil || en.card.state != cardUnknown {
		t.Fatalf("card state: %+v", en)
	}
	if !strings.Contains(v, "notes__write_note · destructive — outcome unknown") {
		t.Fatalf("the card does not say the outcome is unknown:\n%s", v)
	}
	if strings.Contains(h.m.statusLine(), "running a tool") {
		t.Fatalf("status line: %s", h.m.statusLine())
	}
}

// TestDismissSettlesTheSameCard: /dismiss (and /retry) settle the card of
// the call in doubt instead of adding a second one.
func TestDismissSettlesTheSameCard(t *testing.T) {
	for _, verb := range []string{"dismiss", "retry"} {
		t.Run(verb, func(t *testing.T) {
			h := resumedHarness(t)
			h.command("/" + verb + " call_d1")
			h.untilTurnDone()
			if n := cardsOf(h.m, "call_d1"); n != 1 {
				t.Fatalf("%d cards of call_d1 after /%s:\n%s", n, verb, allText(h.m))
			}
			c := h.m.cards["call_d1"].card
			switch verb {
			case "dismiss":
				if c.state != cardUnknown || !strings.Contains(allText(h.m), "outcome unknown · dismissed") {
					t.Fatalf("after /dismiss the card is in state %d:\n%s", c.state, allText(h.m))
				}
			case "retry":
				if c.state == cardUnknown || c.state == cardRunning {
					t.Fatalf("after /retry the card is in state %d:\n%s", c.state, allText(h.m))
				}
			}
			if !strings.Contains(h.m.View(), "All right.") {
				t.Fatalf("the turn did not go on:\n%s", h.m.View())
			}
		})
	}
}
