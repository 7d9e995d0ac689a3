package ui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestGoldenClientBox draws the permission box of a call a client made
// through the gateway beside the chat (latch --serve): it names the
// client, Esc decides later, another call waits behind it, and the status
// line says where the gateway serves and to how many clients.
func TestGoldenClientBox(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	defer ol.Close()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", ID: "20261129-120000-abcdef"})
	defer sess.Close()
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fixedNow },
		Serving: func() (string, int) { return "http://127.0.0.1:8765/mcp", 2 }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 32})
	h := session.Header{Time: fixedNow}
	call := func(id, client, text string) []session.Event {
		return []session.Event{
			&session.ToolCallEvent{Header: h, CallID: id, Server: "notes", Tool: "notes__write_note",
				Arguments: map[string]any{"text": text}, Destructive: true, Client: client},
			&session.PermissionEvent{Header: h, CallID: id, Tool: "notes__write_note", Decision: "asked", By: "policy", Mode: "ask"},
		}
	}
	m.Update(eventsMsg{events: append(call("gw_1", "claude-code", "hello from claude"), call("gw_2", "goose", "and goose")...)})
	pastGuard(m)
	golden.RequireEqual(t, []byte(m.View()))
}
