package cli

// The inbox's first key: typed as soon as the screen shows, while the
// first read of a large backlog is still under way.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// With 1,000 identical calls waiting, a typed as soon as the inbox's
// screen shows (while it still says "reading…", its first read under
// way) marks the 1,000 calls like the first once they are read: the key
// is kept for the list, not dropped on the empty one. (That keys typed
// ahead still decide nothing is TestInboxKeysBeforeTheFirstRead's, on the
// model: in a terminal, keys typed at once arrive as one.)
func TestInboxFirstKeyTypedAsTheScreenShows(t *testing.T) {
	const n = 1000
	r := newPromptRig(t, map[string]any{
		"permissions": map[string]any{"mode": "approve"},
		"serve": map[string]any{"await_poll": "100ms", "park_max_calls_per_client": 2 * n, "park_max_calls": 2 * n,
			"park_max_bytes_per_client": 1 << 30, "park_max_bytes": 1 << 30},
		"mcpServers": map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	}, false)
	gw := startServeStdio(t, r, "--quiet")
	ids := gw.parkMany(t, n, func(int) string { return "the same call" })

	tm := r.startInbox(120, 30)
	scr := tm.waitScreen(t, time.Minute, "the inbox's screen", func(s string) bool { return strings.Contains(s, "calls waiting") })
	tm.typeKeys("a")
	t.Logf("typed a with the screen saying %q", firstLine(scr))
	tm.waitScreen(t, time.Minute, "the first key's marks", func(s string) bool {
		return strings.Contains(unwrapped(s), fmt.Sprintf("marked %d calls like this", n))
	})
	tm.typeKeys("q")
	tm.waitExit(time.Minute)
	if ran := loggedResults(t, r.state); len(ran) != 0 {
		t.Errorf("%d calls ran, want none (nothing was approved; first %s)", len(ran), ids[0])
	}
}

// firstLine is a screen's first line.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// A key typed as latch inbox starts, while it asks the terminal for its
// background (before its screen opens), reaches the inbox: a marks the
// calls like the first once they are read. The query used to read the
// key with the terminal's answer and drop it.
func TestInboxKeyTypedWhileItAsksTheTerminal(t *testing.T) {
	const n = 3
	r := newPromptRig(t, map[string]any{
		"permissions": map[string]any{"mode": "approve"},
		"serve":       map[string]any{"await_poll": "100ms"},
		"mcpServers":  map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	}, false)
	gw := startServeStdio(t, r, "--quiet")
	gw.parkMany(t, n, func(int) string { return "the same call" })

	tm := startLatch(t, r.bin, ptyOptions{Rows: 30, Cols: 120, Host: r.fake.Host(),
		Args: []string{"--config", r.cfg, "inbox"}, Env: r.env, KeysAtQuery: "a"})
	tm.waitScreen(t, time.Minute, "the key typed at the query marking the calls", func(s string) bool {
		return strings.Contains(unwrapped(s), fmt.Sprintf("marked %d calls like this", n))
	})
	tm.typeKeys("q")
	tm.waitExit(time.Minute)
}
