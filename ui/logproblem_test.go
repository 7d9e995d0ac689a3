package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestStatusLineShowsBrokenLog: when the session log cannot be written
// (here its folder is a file), the status line says so: nothing is saved
// and no tool call runs.
func TestStatusLineShowsBrokenLog(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	notDir := filepath.Join(t.TempDir(), "sessions")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	sess := session.New(session.Options{Client: ol.Client(), Model: "qwen3:8b", LogDir: notDir})
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 10})
	if top := strings.SplitN(m.View(), "\n", 2)[0]; !strings.Contains(top, "log ✗ unsaved, no tool calls") {
		t.Fatalf("status line: %q", top)
	}
}
