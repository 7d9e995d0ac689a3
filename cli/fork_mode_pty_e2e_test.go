package cli

import (
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// TestE2EForkSaysItsModeWasNarrowed: in the chat, /mode ask in a session
// whose config leaves the mode at read_only, then /fork: the fork goes on
// in read_only (it gains nothing the config does not give) and the screen
// says so plainly, with the mode it came from and how to widen it again.
func TestE2EForkSaysItsModeWasNarrowed(t *testing.T) {
	fake := newFake(t)
	fake.Script(ollamatest.TextTurn("Parsley is green."))
	tm := startLatch(t, latchBinary(t, mcptestutil.RaceEnabled), ptyOptions{Rows: 30, Cols: 120, Host: fake.Host(),
		Args: []string{"--model", e2eModel}, Env: []string{"XDG_STATE_HOME=" + t.TempDir()}})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool { return inputRow(s) >= 0 })
	sendPrompt(t, tm, "/mode ask")
	tm.waitScreen(t, 5*time.Second, "ask in the status line", func(s string) bool { return strings.Contains(statusLine(s), "ask") })
	sendPrompt(t, tm, "what colour is parsley?")
	tm.waitScreen(t, 15*time.Second, "the answer, done", func(s string) bool {
		return strings.Contains(chatText(s), "Parsley is green.") && strings.Contains(statusLine(s), "tok/s")
	})
	sendPrompt(t, tm, "/fork")
	scr := tm.waitScreen(t, 15*time.Second, "the fork saying its mode was narrowed", func(s string) bool {
		return strings.Contains(chatText(s), "mode read_only, not ask as in the session it came from") && inputRow(s) >= 0
	})
	if c := chatText(scr); !strings.Contains(c, "the config's permissions.mode (read_only); /mode ask widens it again") {
		t.Errorf("the fork's notice does not say why and how to widen it:\n%s", dumpScreen(scr))
	}
	if s := statusLine(scr); !strings.Contains(s, "read_only") {
		t.Errorf("the fork's status line %q, want read_only", s)
	}
	quitAndCheck(t, tm)
}
