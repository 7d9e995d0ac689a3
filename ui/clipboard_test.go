package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/themes"
)

// TestEveryCopyIsSanitized: whatever the model copies — here a login page
// as an authorization server could write it — reaches the clipboard
// without control characters: the clipboard the model holds cleans every
// text itself.
func TestEveryCopyIsSanitized(t *testing.T) {
	var got []string
	sess := session.New(session.Options{Client: nil, Model: "m"})
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1,
		Clipboard: func(s string) { got = append(got, s) }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 20})
	m.login.url = "https://as.example/authorize?x=1\x1b]52;c;ZXZpbA==\x07&y=\u009b2J\r\nrm -rf ~"
	cmd := m.copyLast()
	if cmd == nil {
		t.Fatal("nothing copied")
	}
	cmd()
	if len(got) != 1 || strings.ContainsAny(got[0], "\x1b\x07\u009b\r") {
		t.Errorf("copied %q", got)
	}
}
