package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestPickerKeepsModelAsDefault: ctrl+s in the model picker chooses the
// model and has it written as the default, saying where; the picker's
// hints show the key.
func TestPickerKeepsModelAsDefault(t *testing.T) {
	srv := ollamatest.New(
		ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}},
		ollamatest.Model{Name: "llama3.2:3b", Capabilities: []string{"completion", "tools"}},
	)
	defer srv.Close()
	sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), ID: "20261129-120000-keep00"})
	defer sess.Close()
	var kept []string
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1,
		KeepModel: func(name string) (string, error) {
			kept = append(kept, name)
			return "/home/me/.config/latch/config.json", nil
		}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	m.Update(m.listModels(true)())
	if m.picker == nil || !strings.Contains(m.View(), "ctrl+s choose and keep as the default") {
		t.Fatalf("no picker with the key's hint:\n%s", m.View())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("llama")})
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	if cmd == nil {
		t.Fatal("ctrl+s in the picker did nothing")
	}
	m.Update(cmd())
	if got := sess.Model(); got != "llama3.2:3b" || len(kept) != 1 || kept[0] != "llama3.2:3b" {
		t.Fatalf("model %q, kept %q; want llama3.2:3b both", got, kept)
	}
	if v := m.View(); !strings.Contains(v, `llama3.2:3b is the default model now: "model" written to /home/me/.config/latch/config.json`) {
		t.Fatalf("no word of where it was written:\n%s", v)
	}
}
