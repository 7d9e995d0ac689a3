package ui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Ctrl+Y inside tmux with no clipboard command that works: the copy goes
// through the terminal (OSC 52), which latch cannot check, so the chat
// does not say "copied": it says it may not have arrived and how to turn
// tmux's set-clipboard on. Where a clipboard command took the text it
// says copied; over SSH the command (the remote machine's clipboard) is
// not used, and the chat says what OSC 52 needs there.
func TestCopyThroughTheTerminalSaysItMayNotHaveArrived(t *testing.T) {
	for _, tc := range []struct {
		name       string
		env        map[string]string
		nativeOK   bool
		wantNative bool
		want       []string
	}{
		{"tmux", map[string]string{"TMUX": "/tmp/tmux-1000/default,1,0"}, false, false,
			[]string{"sent the last answer", "may not reach the clipboard", "set -g set-clipboard on"}},
		{"screen", map[string]string{"STY": "1.pts-0.host", "TERM": "screen"}, false, false,
			[]string{"may not reach the clipboard", "GNU screen"}},
		{"ssh", map[string]string{"SSH_TTY": "/dev/pts/3"}, true, false,
			[]string{"may not reach the clipboard", "over SSH"}},
		{"local command", map[string]string{"TMUX": "/tmp/tmux-1000/default,1,0"}, true, true,
			[]string{"copied the last answer (5 characters) to the clipboard"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fh := newFakeHarness(t, 100, 30)
			var native, osc []string
			nativeCopy := func(s string) error {
				if !tc.nativeOK {
					return errors.New("no clipboard utilities available")
				}
				native = append(native, s)
				return nil
			}
			getenv := func(k string) string { return tc.env[k] }
			fh.m.clipboard = clipboardDoor(systemClipboard(getenv, nativeCopy, func(s string) { osc = append(osc, s) }))
			fh.m.login.url = "hello" // what ctrl+y copies first
			for _, msg := range fh.press(tea.KeyMsg{Type: tea.KeyCtrlY}) {
				fh.m.Update(msg)
			}
			text := strings.Join(strings.Fields(allText(fh.m)), " ")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the chat lacks %q:\n%s", w, text)
				}
			}
			if !tc.wantNative && strings.Contains(text, "copied") {
				t.Errorf("the chat says copied of a copy latch cannot check:\n%s", text)
			}
			if got := len(native) == 1; got != tc.wantNative || (len(osc) == 1) == tc.wantNative {
				t.Errorf("clipboard command %q, OSC 52 %q", native, osc)
			}
		})
	}
}
