package session_test

import (
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// TestReadOnlyFirstDenialExplainsTheMode: the first call read_only mode
// denies comes with one notice saying what the mode is and how to let the
// tool run (a chat command at the keyboard, the flag in -p); a second
// denial in the session says nothing more.
func TestReadOnlyFirstDenialExplainsTheMode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		noOne    bool
		want     []string
		wantNone []string
	}{
		{"chat", false, []string{"read_only mode: only allow-listed tools run, whatever a server says about its tools",
			"/allow notes__write_note", "/mode ask"}, []string{"--allow"}},
		{"-p", true, []string{"read_only mode: only allow-listed tools run, whatever a server says about its tools",
			"--allow notes__write_note", "--mode ask would deny it too"}, []string{"/allow", "/mode"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newToolHarness(t, session.Options{NonInteractive: tt.noOne, Policy: permissions.Policy{
				ServerAllow: map[string][]string{"notes": {"read_note"}},
			}})
			h.ol.Script(callsTurn(toolCall("call_write001", "notes__write_note", "text", "hi")), ollamatest.TextTurn("No."),
				callsTurn(toolCall("call_write002", "notes__write_note", "text", "ho")), ollamatest.TextTurn("Still no."))

			send(t, h.sess, "save hi")
			evs := h.r.turn()
			finished(t, evs, "No.")
			n := one[*session.Notice](t, evs)
			containsAll(t, n.Text, tt.want...)
			for _, w := range tt.wantNone {
				if strings.Contains(n.Text, w) {
					t.Errorf("the notice offers %q: %q", w, n.Text)
				}
			}
			if strings.Contains(n.Text, "\n") {
				t.Errorf("the notice is more than a line: %q", n.Text)
			}
			p := one[*session.PermissionEvent](t, evs)
			for _, w := range tt.wantNone {
				if strings.Contains(p.Reason, w) {
					t.Errorf("the denial offers %q: %q", w, p.Reason)
				}
			}

			send(t, h.sess, "save ho")
			evs = h.r.turn()
			finished(t, evs, "Still no.")
			if n := of[*session.Notice](evs); len(n) != 0 {
				t.Errorf("notices on the second denial: %v", n)
			}
		})
	}
}
