package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestCardFromText: a call the model wrote as text is marked on its card,
// whatever becomes of it; a real call is not.
func TestCardFromText(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	defer ol.Close()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", ID: "20261129-120000-abcdef"})
	defer sess.Close()
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	h := session.Header{}
	m.Update(eventsMsg{events: []session.Event{
		&session.UserMessage{Header: h, Turn: 1, Text: "read and write"},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "call_text0001", Server: "notes", Tool: "notes__read_note",
			Arguments: map[string]any{}, ReadOnly: true, FromText: true},
		&session.PermissionEvent{Header: h, Turn: 1, CallID: "call_text0001", Decision: "allowed", By: "policy"},
		&session.ToolResultEvent{Header: h, CallID: "call_text0001", OK: true, DurationMS: 4, Size: 2, Preview: "hi"},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "call_text0002", Server: "notes", Tool: "notes__write_note",
			Arguments: map[string]any{"text": "x"}, FromText: true},
		&session.PermissionEvent{Header: h, Turn: 1, CallID: "call_text0002", Decision: "denied", By: "policy", Reason: "read_only"},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "call_real0003", Server: "notes", Tool: "notes__list_notes",
			Arguments: map[string]any{}},
	}})
	view := m.View()
	var read, write, real string
	for _, l := range strings.Split(view, "\n") {
		switch {
		case strings.Contains(l, "notes__read_note"):
			read = l
		case strings.Contains(l, "notes__write_note"):
			write = l
		case strings.Contains(l, "notes__list_notes"):
			real = l
		}
	}
	if !strings.Contains(read, "notes__read_note · read-only · from text") {
		t.Errorf("read card head %q, want it marked from text", read)
	}
	if !strings.Contains(write, "notes__write_note · from text") {
		t.Errorf("denied card head %q, want it marked from text", write)
	}
	if real == "" || strings.Contains(real, "from text") {
		t.Errorf("real call's card head %q, want no from-text mark", real)
	}
}
