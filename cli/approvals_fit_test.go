package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"latch/config"
	"latch/session"
)

// latch approvals on a terminal fits each line to its width: the
// ARGUMENTS column is cut with …, the SESSION column left out (saying
// so) when the columns before the arguments leave them too little, and
// at 60 columns the arguments go under each call; every id stays whole.
// Into a pipe (width 0) every argument is printed whole, as before. An
// escape and a planted token-looking value in the arguments reach no
// line raw. Before, at 80 and 60 columns, the lines ran past the width.
func TestApprovalsFitTheTerminal(t *testing.T) {
	dir := t.TempDir()
	sess := parkingSession(t, dir)
	const tail = "END-OF-THE-ARGUMENTS"
	// Many short values: ArgLine elides long values, not many keys.
	long := map[string]any{"text": "\x1b]52;c;SGVsbG8=\x07\x1b[2J ghp_PLANTEDtoken0123456789abcdef"}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		long[k] = "lorem ipsum " + k
	}
	long["zz"] = tail
	var ids []string
	for _, c := range []struct {
		client string
		args   map[string]any
	}{{"claude-code", long}, {"ci", map[string]any{"text": "short"}}} {
		p := sess.GatewayCall(context.Background(), session.GatewayCall{Client: c.client, Name: "notes__write_note",
			Arguments: c.args})
		if p.Decision != session.GatewayParked {
			t.Fatalf("the call did not park: %+v", p)
		}
		ids = append(ids, p.ID)
	}
	s := &settings{cfg: &config.Config{}, mode: "ask", stateDir: dir, getenv: func(string) string { return "" }}
	for _, width := range []int{0, 200, 120, 80, 60, 40} {
		var out, errb bytes.Buffer
		if code := listApprovals(s, false, width, time.Now(), &out, &errb); code != exitOK {
			t.Fatalf("latch approvals at %d columns: exit %d, %s", width, code, errb.String())
		}
		v := out.String()
		t.Logf("at %d columns:\n%s", width, v)
		if strings.ContainsAny(v, "\x1b\x07") {
			t.Errorf("at %d columns a control reached the output: %q", width, v)
		}
		for _, id := range ids {
			if !strings.Contains(v, id+" ") {
				t.Errorf("at %d columns the id %s is not whole:\n%s", width, id, v)
			}
		}
		if !strings.Contains(v, `{"text": "short"}`) || !strings.Contains(v, `{"a": "lorem ipsum a"`) {
			t.Errorf("at %d columns the arguments are gone:\n%s", width, v)
		}
		if width == 0 {
			if !strings.Contains(v, tail) || !strings.Contains(v, "SESSION") {
				t.Errorf("into a pipe the arguments or the SESSION column are cut:\n%s", v)
			}
			continue
		}
		for _, l := range strings.Split(strings.TrimSuffix(v, "\n"), "\n") {
			if n := ansi.StringWidth(l); n > width {
				t.Errorf("a line of %d cells at %d columns: %q", n, width, l)
			}
		}
		if strings.Contains(v, tail) || !strings.Contains(v, "…") {
			t.Errorf("at %d columns the long arguments are not cut with …:\n%s", width, v)
		}
		head := v[:strings.Index(v, "\n")]
		if width <= 80 && (strings.Contains(head, "SESSION") || !strings.Contains(v, "(SESSION not shown")) {
			t.Errorf("at %d columns the SESSION column is shown, or its leaving out not said:\n%s", width, v)
		}
	}
}
