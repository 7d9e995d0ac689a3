package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// latch approvals in a terminal of 80 and of 60 columns writes no line
// wider than the terminal (its lines ran past it, the ARGUMENTS column
// whole): the SESSION column is left out, saying so, and the arguments
// are cut to the width under each call. Into a pipe it prints every
// column and the arguments whole, as before.
func TestApprovalsInANarrowTerminal(t *testing.T) {
	t.Parallel()
	long := map[string]any{"name": "mem__create_entities", "arguments": map[string]any{"entities": []any{
		map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea", "lives by the sea",
			"has a cat called Ada", "plays the cello \x1b]52;c;SGVsbG8=\x07", "END-OF-THE-ARGUMENTS"}}}}}
	r, _, h := parkCallOverHTTP(t, long)
	piped := r.run("", "approvals")
	if piped.code != exitOK || !strings.Contains(piped.stdout, "SESSION") || !strings.Contains(piped.stdout, "END-OF-THE-ARGUMENTS") {
		t.Fatalf("latch approvals into a pipe (exit %d) cut the table:\n%s%s", piped.code, piped.stdout, piped.stderr)
	}
	for _, cols := range []int{80, 60} {
		tm := startLatch(t, r.bin, ptyOptions{Rows: 30, Cols: cols, Host: r.fake.Host(),
			Args: []string{"--config", r.cfg, "approvals"}, Env: r.env})
		st := tm.waitExit(time.Minute)
		if st == nil || st.ExitCode() != exitOK {
			t.Fatalf("latch approvals at %d columns did not exit 0 (%v):\n%s", cols, st, dumpScreen(tm.screen()))
		}
		tm.drain(5 * time.Second)
		raw := string(tm.rawOutput())
		if strings.ContainsAny(raw, "\x1b\x07") {
			t.Errorf("at %d columns a control reached the terminal: %q", cols, raw)
		}
		for _, l := range strings.Split(strings.TrimRight(raw, "\r\n"), "\r\n") {
			if n := ansi.StringWidth(l); n > cols {
				t.Errorf("a line of %d cells in a terminal of %d columns: %q", n, cols, l)
			}
		}
		scr := tm.screen()
		if !strings.Contains(scr, h.InvocationID+" ") || !strings.Contains(scr, "(SESSION not shown") ||
			!strings.Contains(scr, `{"entities": [`) || !strings.Contains(scr, "…") {
			t.Errorf("at %d columns the id, the arguments cut with …, or the note on SESSION are missing:\n%s", cols, dumpScreen(scr))
		}
	}
}
