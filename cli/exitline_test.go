package cli

import "testing"

// TestExitLine: the line left on the normal screen names the session and
// how to resume it, and the calls that wait for approval; a session with
// nothing in it gets none.
func TestExitLine(t *testing.T) {
	const id = "20261201-153000-abc123"
	for _, c := range []struct {
		messages bool
		waiting  int
		want     string
	}{
		{false, 0, ""},
		{true, 0, "session " + id + " · resume with: latch --resume " + id},
		{true, 1, "session " + id + " · resume with: latch --resume " + id + " · 1 call waits for approval"},
		{true, 2, "session " + id + " · resume with: latch --resume " + id + " · 2 calls wait for approval"},
		{false, 1, "session " + id + " · resume with: latch --resume " + id + " · 1 call waits for approval"},
	} {
		if got := exitLine(id, c.messages, c.waiting); got != c.want {
			t.Errorf("exitLine(%v, %d) = %q, want %q", c.messages, c.waiting, got, c.want)
		}
	}
}
