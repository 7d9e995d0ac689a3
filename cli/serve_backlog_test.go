package cli

// The backlog figures of TestServeParkedAtScale (make bench): latch
// approvals, one latch approve, and a bulk decision of 1,000 identical
// calls in latch inbox, with 10,000 calls waiting, each by this build and
// by the previous one (BENCH_BASE, a git revision: by default the commit
// this branch left main at, or HEAD~1 on main) in the same run, so that
// they compare as ratios on the same machine at the same moment.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session"
)

// timeApprovals runs bin's latch approvals once and returns its wall and
// CPU time; it fails unless every id in want is listed.
func timeApprovals(t *testing.T, r *promptRig, bin string, want ...string) (wall, cpu time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, "--config", r.cfg, "approvals")
	cmd.Env, cmd.Dir = r.env, r.cwd
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	out, err := cmd.Output()
	wall = time.Since(start)
	for _, id := range want {
		if err != nil || !strings.Contains(string(out), id) {
			t.Fatalf("%s approvals does not list %s: %v\n%s", bin, id, err, errb.String())
		}
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// timeApprove approves id with bin's latch approve in a terminal, as a
// person does, and returns the time the command took apart from the
// person: from its start to its question, and from the answer's Enter
// to its exit.
func timeApprove(t *testing.T, r *promptRig, bin, id string) (ask, apply time.Duration) {
	t.Helper()
	start := time.Now()
	tm := startLatch(t, bin, ptyOptions{Rows: 40, Cols: 200, Host: r.fake.Host(),
		Args: []string{"--config", r.cfg, "approve", id}, Env: r.env})
	_, at, ok := tm.waitScreenAt(mcptestutil.HangBound(time.Minute), func(s string) bool {
		return strings.Contains(unwrapped(s), decideQuestion)
	})
	if !ok {
		t.Fatalf("%s approve %s did not ask; screen:\n%s", bin, id, dumpScreen(tm.screen()))
	}
	ask = at.Sub(start)
	entered := time.Now()
	tm.typeKeys(idTail(id) + keyEnter)
	st := tm.waitExit(mcptestutil.HangBound(time.Minute))
	apply = time.Since(entered)
	if st == nil || st.ExitCode() != 0 {
		t.Fatalf("%s approve %s: %v; screen:\n%s", bin, id, st, dumpScreen(tm.screen()))
	}
	return ask, apply
}

// timeBulk decides, in bin's latch inbox, the oldest waiting call and the
// others like it (a, then y, then Enter): n calls. It returns the time
// from the Enter to the screen saying all n were approved.
func timeBulk(t *testing.T, r *promptRig, bin string, n int) time.Duration {
	t.Helper()
	tm := startLatch(t, bin, ptyOptions{Rows: 30, Cols: 120, Host: r.fake.Host(),
		Args: []string{"--config", r.cfg, "inbox"}, Env: r.env})
	tm.waitScreen(t, mcptestutil.HangBound(time.Minute), "the waiting calls", func(s string) bool { return strings.Contains(s, "calls waiting") })
	// A key typed as the screen first shows may be dropped before the
	// inbox reads its input: a (which marks the same calls however often)
	// is typed again until it takes.
	marked := func(s string) bool {
		return strings.Contains(unwrapped(s), fmt.Sprintf("marked %d calls like this", n))
	}
	for deadline := time.Now().Add(time.Minute); ; {
		tm.typeKeys("a")
		if _, _, ok := tm.waitScreenAt(2*time.Second, marked); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s inbox did not mark the %d calls like the first; screen:\n%s", bin, n, dumpScreen(tm.screen()))
		}
	}
	tm.typeKeys("y")
	tm.waitScreen(t, time.Minute, "the step", func(s string) bool {
		return strings.Contains(unwrapped(s), fmt.Sprintf("enter approves all %d", n))
	})
	start := time.Now()
	tm.typeKeys(keyEnter)
	_, at, ok := tm.waitScreenAt(mcptestutil.HangBound(time.Minute), func(s string) bool {
		return strings.Contains(unwrapped(s), fmt.Sprintf("approved %d of %d calls", n, n))
	})
	if !ok {
		t.Fatalf("%s inbox did not approve the %d calls; screen:\n%s", bin, n, dumpScreen(tm.screen()))
	}
	tm.typeKeys("q")
	tm.waitExit(time.Minute)
	return at.Sub(start)
}

// ranOnce fails unless each of the calls ran exactly once, as the log
// says: one tool_result each.
func ranOnce(t *testing.T, dir string, ids []string) {
	t.Helper()
	results := loggedResults(t, dir)
	for _, id := range ids {
		if results[id] != 1 {
			t.Errorf("call %s ran %d times, want exactly once", id, results[id])
		}
	}
}

// loggedResults counts the tool_results of each call in the logs of dir.
func loggedResults(t *testing.T, dir string) map[string]int {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	results := map[string]int{}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if e, ok := session.ReadParkLine(line); ok && e.Type == session.TypeToolResult {
				results[e.CallID]++
			}
		}
	}
	return results
}
