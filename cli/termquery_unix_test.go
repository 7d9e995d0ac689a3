//go:build unix

package cli

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/creack/pty"

	"latch/mcp/mcptestutil"
)

// TestQuerySync asks a terminal (the far end of a real pty, answering as
// each kind of terminal does) whether it knows synchronized output: only
// a DECRPM saying the mode is known (1 or 2) counts; DA1 ends the wait at
// once on a terminal that ignores DECRQM; one that answers nothing is
// given up on at the timeout.
func TestQuerySync(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		want        bool
		quick       bool
	}{
		{"knows it (reset)", "\x1b[?2026;2$y\x1b[?62;22c", true, true},
		{"knows it (set)", "\x1b[?2026;1$y\x1b[?62c", true, true},
		{"not recognised", "\x1b[?2026;0$y\x1b[?62;22c", false, true},
		{"permanently reset", "\x1b[?2026;4$y\x1b[?1;2c", false, true},
		{"ignores DECRQM", "\x1b[?62;22c", false, true},
		{"answers nothing", "", false, false},
		{"answer in pieces", "\x1b[?20", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pty here:", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			go func() {
				buf := make([]byte, 64)
				var got []byte
				for !bytes.Contains(got, []byte("\x1b[c")) {
					n, err := ptmx.Read(buf)
					if err != nil {
						return
					}
					got = append(got, buf[:n]...)
				}
				if !bytes.Contains(got, []byte("\x1b[?2026$p")) {
					return
				}
				_, _ = io.WriteString(ptmx, tc.reply)
				if tc.name == "answer in pieces" {
					time.Sleep(30 * time.Millisecond)
					_, _ = io.WriteString(ptmx, "26;2$y")
					time.Sleep(30 * time.Millisecond)
					_, _ = io.WriteString(ptmx, "\x1b[?62;22c")
				}
			}()
			// A terminal that answers is given a timeout far beyond the
			// test's bound: only its answer can end the wait in time (a
			// measure of how soon would fail on a busy machine). One
			// that answers nothing is given up on at 400ms, not sooner.
			timeout := 400 * time.Millisecond
			if tc.quick {
				timeout = 10 * mcptestutil.HangBound(0)
			}
			start := time.Now()
			done := make(chan bool, 1)
			go func() { ok, _ := querySync(tty, tty, timeout); done <- ok }()
			var got bool
			select {
			case got = <-done:
			case <-time.After(mcptestutil.HangBound(0)):
				t.Fatalf("querySync still waiting after %s: the answer did not end the wait", mcptestutil.HangBound(0))
			}
			took := time.Since(start)
			if got != tc.want {
				t.Errorf("querySync = %v, want %v", got, tc.want)
			}
			if !tc.quick && took < timeout {
				t.Errorf("gave up after %s, before the timeout", took)
			}
		})
	}
}

// TestQueryBackground asks a terminal (the far end of a real pty) for its
// background: a light one's OSC 11 answer says light, a dark one's dark
// (2- and 4-digit components); one that knows only DA1, or answers
// nothing, leaves it to $COLORFGBG, and to dark without it.
func TestQueryBackground(t *testing.T) {
	for _, tc := range []struct {
		name, reply, fgbg string
		want              bool // dark
	}{
		{"light", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c", "", false},
		{"light, BEL, 2 digits", "\x1b]11;rgb:f0/f0/e8\a\x1b[?62c", "", false},
		{"dark", "\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\\x1b[?62;22c", "15;7", true},
		{"only DA1, COLORFGBG light", "\x1b[?62;22c", "0;15", false},
		{"only DA1", "\x1b[?62;22c", "", true},
		{"nothing, COLORFGBG light", "", "0;default;7", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pty here:", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			go func() {
				buf := make([]byte, 64)
				var got []byte
				for !bytes.Contains(got, []byte("\x1b[c")) {
					n, err := ptmx.Read(buf)
					if err != nil {
						return
					}
					got = append(got, buf[:n]...)
				}
				if bytes.Contains(got, []byte("\x1b]11;?")) {
					_, _ = io.WriteString(ptmx, tc.reply)
				}
			}()
			env := func(k string) string {
				if k == "COLORFGBG" {
					return tc.fgbg
				}
				return ""
			}
			// A terminal that answers is given a timeout far beyond the
			// test's bound, so that a busy machine cannot make its answer
			// late; only the one that answers nothing waits out the real one.
			timeout := bgQueryTimeout
			if tc.reply != "" {
				timeout = 10 * mcptestutil.HangBound(0)
			}
			done := make(chan bool, 1)
			go func() { dark, _ := queryBackground(tty, tty, timeout, env); done <- dark }()
			select {
			case got := <-done:
				if got != tc.want {
					t.Errorf("queryBackground = dark %v, want %v", got, tc.want)
				}
			case <-time.After(mcptestutil.HangBound(0)):
				t.Fatalf("queryBackground still waiting after %s: the answer did not end the wait", mcptestutil.HangBound(0))
			}
		})
	}
}

// What a query reads besides the terminal's answers is the keys typed
// meanwhile, kept in order; the answers latch asks for are taken out.
func TestTypedKeysAroundTheAnswers(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{"\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?62;22c", ""},
		{"a\x1b]11;rgb:ffff/ffff/ffff\x07b\x1b[?62;22c", "ab"},
		{"hi\r\x1b[?2026;2$y\x1b[A\x1b[?1;2c", "hi\r\x1b[A"},
		{"\x1b\x1b]11;rgb:00/00/00\x1b\\", "\x1b"},
		{"", ""},
	} {
		if got := string(typedKeys([]byte(tc.got))); got != tc.want {
			t.Errorf("typedKeys(%q) = %q, want %q", tc.got, got, tc.want)
		}
	}
}
