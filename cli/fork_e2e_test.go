package cli

import (
	"strings"
	"testing"

	"latch/session/ollamatest"
)

// TestForkFlagLeavesTheParkedWriteBehind: `latch --fork ID` goes on from
// a session whose write waits for approval, in a new session that names
// its parent in `latch sessions`; the write is not in the fork, the model
// there is told it did not run, and the parent still waits for it.
func TestForkFlagLeavesTheParkedWriteBehind(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	id := parkAda(t, r, false)

	r.fake.Script(ollamatest.TextTurn("Fine, Ada stays out."))
	res := r.run("", "--fork", id, "-p", "forget Ada")
	if res.code != exitOK || res.stdout != "Fine, Ada stays out.\n" {
		t.Fatalf("latch --fork: exit %d, stdout %q; want 0 and the answer", res.code, res.stdout)
	}
	if !hasUserMessage(r.fake, "remember Ada") {
		t.Error("the fork's request lacks the parent's prompt")
	}
	if msg := toolError(t, toolMessage(t, r.lastRequest(), "call_ada")); !strings.Contains(msg, "not run") {
		t.Errorf("the model in the fork was told %q of the parked write, want that it did not run", msg)
	}
	if r.memNames()["Ada"] != 0 || r.memCalls("create_entities") != 0 {
		t.Fatal("the parked write ran in the fork")
	}
	var forkID string
	for _, x := range r.sessionIDs() {
		if x != id {
			forkID = x
		}
	}
	row := strings.Join(sessionsRow(t, r, forkID), " ")
	if !strings.Contains(row, "(forked from "+id+")") || !strings.Contains(row, "remember Ada") {
		t.Errorf("latch sessions row of the fork %q, want its parent and first prompt", row)
	}
	if parent := sessionsRow(t, r, id); len(parent) < 5 || parent[4] != "a1" {
		t.Errorf("latch sessions row of the parent %q, want a1 still pending", parent)
	}

	// An id that is no session is a usage error, and leaves nothing.
	res = r.run("", "--fork", "20260101-000000-nope00", "-p", "hi")
	if res.code != exitUsage || !strings.Contains(res.stderr, "no session 20260101-000000-nope00") {
		t.Errorf("--fork of an unknown id: exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(r.sessionIDs()); n != 2 {
		t.Errorf("%d sessions after the refused fork, want 2", n)
	}
}
