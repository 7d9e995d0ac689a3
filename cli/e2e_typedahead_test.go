package cli

import (
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// Keys typed as the chat starts, while latch asks the terminal for its
// background (before the screen opens), reach the input line: the query
// used to read them with the terminal's answer and drop them.
func TestE2EKeysTypedWhileLatchAsksTheTerminal(t *testing.T) {
	fake := newFake(t)
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 24, Cols: 80, Host: fake.Host(), Args: []string{"--model", e2eModel},
		KeysAtQuery: "hello"})
	tm.waitScreen(t, time.Minute, "the keys typed at the query on the input line", func(s string) bool {
		return strings.Contains(inputText(s), "hello")
	})
	quitNow(t, tm)
}
