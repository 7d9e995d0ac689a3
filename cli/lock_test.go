package cli

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestTwoProcessesApproveOnce races two `latch --resume ID --approve a1
// -p ""` on one parked write, 20 times: each time the memory server gets
// the write exactly once. One process holds the session; the other is
// refused, naming the holder's pid.
func TestTwoProcessesApproveOnce(t *testing.T) {
	t.Parallel()
	const rounds = 20
	refused := 0
	for round := 1; round <= rounds; round++ {
		r := newCrashRig(t)
		id := r.parkAda()
		var wg sync.WaitGroup
		res := make([]crashRun, 2)
		for i := range res {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = r.run("", nil, "--resume", id, "--approve", "a1", "-p", "")
			}()
		}
		wg.Wait()
		r.waitServersGone()
		r.checkWrites("round "+strconv.Itoa(round), 1, 1)
		ok := 0
		for _, x := range res {
			switch {
			case x.code == exitOK && strings.TrimSpace(x.stdout) == "Saved Ada.":
				ok++
			case x.code == exitError && strings.Contains(x.stderr, "is open in another latch ("):
				refused++
			case x.code == exitOK, x.code == exitError && strings.Contains(x.stderr, "already resolved"):
				// The second came after the first finished (a loaded
				// machine starts them apart): nothing owed, nothing run —
				// the write count above says so — and --approve of a
				// decided approval is an error.
			default:
				t.Fatalf("round %d: exit %d, stdout %q, stderr %q", round, x.code, x.stdout, x.stderr)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d runs finished the turn, want 1: %+v", round, ok, res)
		}
	}
	t.Logf("%d rounds: the write ran once each; %d times the second process was refused while the first held the session", rounds, refused)
}
