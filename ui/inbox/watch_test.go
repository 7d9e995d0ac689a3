package inbox

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"latch/session"
)

// hostileWhy is a server's error: an escape that would set the clipboard
// and clear the screen, a token-looking value, and a second line.
const hostileWhy = "the disk is on fire \x1b]52;c;SGVsbG8=\x07\x1b[2J ghp_PLANTEDtoken0123456789abcdefABCDEF\nsecond line"

// TestGoldenInboxRanNotes80x24: after a bulk approval that counted
// "approved 4 of 4", a later read says which of the calls then failed,
// each with its error's first line shown inert (the escape made visible,
// the second line left out), and that two failed; a call that ran well
// and one still running say nothing. Past the watch, the one still
// running is said to be so.
func TestGoldenInboxRanNotes80x24(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	c := func(id string) Call {
		return Call{ParkedCall: session.ParkedCall{Session: "20261202-080000-aaaaaa", ApprovalID: "A" + id, CallID: "gw_00000000000" + id,
			Tool: "fs__write_file"}}
	}
	approved := []Call{c("1"), c("2"), c("3"), c("4")}
	logged := map[string]session.ParkedCall{
		"gw_000000000001": {Decision: "approved", Started: true, Ran: true, Result: session.LoggedResult{Error: hostileWhy}},
		"gw_000000000002": {Decision: "approved", Started: true, Ran: true, Result: session.LoggedResult{IsError: true,
			Content: "permission denied: /etc/passwd\nat line 2"}},
		"gw_000000000003": {Decision: "approved", Started: true, Ran: true, Result: session.LoggedResult{Content: "saved"}},
		"gw_000000000004": {Decision: "approved", Started: true},
	}
	looked := 0
	s.m.o.Find = func(sess string, ids []string) ([]session.ParkedCall, error) {
		looked++
		var out []session.ParkedCall
		for _, id := range ids {
			p := logged[id]
			p.Session, p.CallID, p.ApprovalID = sess, id, "A"+id[len(id)-1:]
			out = append(out, p)
		}
		return out, nil
	}
	t1 := tally{word: "approved", by: "alice", total: 4, ok: 4}
	s.m.busy = 4 // sent
	_, s.pending = s.m.Update(decidedMsg{n: 4, lines: []string{t1.summary()}, approved: approved})
	s.read()
	v := s.m.View()
	assertFits(t, v, 80, 24)
	if strings.ContainsAny(v, "\x1b\x07") {
		t.Fatalf("a control reached the screen: %q", v)
	}
	all := strings.Join(s.m.all.lines, "\n")
	containsAll(t, all, "approved 4 of 4 calls",
		"gw_000000000001 (fs__write_file): approved, and then it failed: the disk is on fire ␛]52;c;SGVsbG8=␇␛[2J",
		"ghp_PLANTED", "gw_000000000002 (fs__write_file): approved, and then it failed: permission denied: /etc/passwd …",
		"2 calls approved here then failed")
	for _, not := range []string{"second line", "at line 2", "gw_000000000003", "gw_000000000004"} {
		if strings.Contains(all, not) {
			t.Errorf("the notes say %q:\n%s", not, all)
		}
	}
	golden.RequireEqual(t, []byte(v))

	// Said once: the next read looks only at the call still running.
	looked = 0
	s.read()
	if n := strings.Count(strings.Join(s.m.all.lines, "\n"), "gw_000000000001"); n != 1 || looked != 1 || len(s.m.watch) != 1 {
		t.Errorf("after a second read: the failure said %d times, %d look-ups, %d calls watched; want 1, 1, 1", n, looked, len(s.m.watch))
	}
	s.now = s.now.Add(resultWatch + time.Second)
	s.read()
	containsAll(t, s.m.View(), "1 approved call still running after 1m0s: its result goes to its client")
	looked = 0
	s.read()
	if looked != 0 || len(s.m.watch) != 0 {
		t.Errorf("past its watch the call is still looked up (%d) or watched (%d)", looked, len(s.m.watch))
	}
}

// TestInboxSaysAnApprovedCallThenFailed: through a real gateway, two
// calls approved together both count as approved; the one whose tool then
// gave an error result is said, by a later read, to have failed, with its
// error's first line, inert; the other is not.
func TestInboxSaysAnApprovedCallThenFailed(t *testing.T) {
	g := newGateway(t, "")
	bad, good := g.park("ci", "fail: "+hostileWhy), g.park("ci", "fine")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 100, 30)
	s.readUntil("two calls", func(v string) bool { return strings.Contains(v, "2 calls waiting") })
	s.press(time.Second, space, space, runes("y"))
	s.now = s.now.Add(guard)
	s.press(time.Second, enter)
	v := s.readUntil("the failure said", func(v string) bool { return strings.Contains(v, "and then it failed") })
	if strings.ContainsAny(v, "\x1b\x07") {
		t.Fatalf("a control reached the screen: %q", v)
	}
	all := strings.Join(s.m.all.lines, "\n")
	containsAll(t, all, "approved 2 of 2 calls, by alice on /dev/pts/1",
		bad+" (notes__write_note): approved, and then it failed: the disk is on fire ␛]52;c;SGVsbG8=␇␛[2J ghp_PLANTED")
	if strings.Contains(all, good+" (") || strings.Contains(all, "second line") {
		t.Errorf("the call that ran well is noted, or the error's second line shown:\n%s", all)
	}
	g.waitRan("fine", 1)
	s.readUntil("no call watched", func(string) bool { return len(s.m.watch) == 0 })
	if all = strings.Join(s.m.all.lines, "\n"); strings.Contains(all, good) || strings.Count(all, bad) != 1 {
		t.Errorf("the notes:\n%s\nwant the failed call once, the other not at all", all)
	}
}
