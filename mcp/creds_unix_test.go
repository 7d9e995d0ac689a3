//go:build !windows

package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestTokenCommandTimeoutKillsItsChildren: a token_command that left a
// child running (which holds its stdout) fails at its timeout, not when
// the child ends, and the child is killed with it.
func TestTokenCommandTimeoutKillsItsChildren(t *testing.T) {
	old := tokenCommandTimeout
	tokenCommandTimeout = 500 * time.Millisecond
	defer func() { tokenCommandTimeout = old }()

	pidfile := filepath.Join(t.TempDir(), "pids")
	// The shell and its background child write their pids, then both sleep
	// an hour: far beyond the test's bound, so only the timeout can end
	// resolveToken in time.
	script := `echo $$ > ` + pidfile + `.tmp; sleep 3600 & echo $! >> ` + pidfile + `.tmp; mv ` + pidfile + `.tmp ` + pidfile + `; sleep 3600`
	cfg := ServerConfig{Name: "crm", TokenCommand: []string{"sh", "-c", script}}

	var pids []int
	t.Cleanup(func() {
		for _, pid := range pids {
			if mcptestutil.ProcessAlive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := resolveToken(context.Background(), cfg, func(string) string { return "" })
		done <- err
	}()
	pids = mcptestutil.ReadPidfile(t, pidfile, 5*time.Second)
	if len(pids) != 2 {
		t.Fatalf("pidfile: %v", pids)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatalf("resolveToken still running after %s", time.Since(start))
	}
	t.Logf("resolveToken returned after %s: %v", time.Since(start), err)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 500ms") {
		t.Fatalf("err = %v", err)
	}
	for _, pid := range pids {
		if !mcptestutil.WaitProcessGone(pid, 2*time.Second) {
			t.Errorf("pid %d of the token_command alive after its timeout", pid)
		}
	}
}

// TestTokenCommandLeavingAChildStillWorks: a command that prints the token
// and exits, leaving a child that holds stdout, gives its token soon after
// it exits.
func TestTokenCommandLeavingAChildStillWorks(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	cfg := ServerConfig{Name: "crm", TokenCommand: []string{"sh", "-c",
		`echo tok-5555; sleep 3600 & echo $! > ` + pidfile}}
	// The child holds stdout for an hour, far beyond the test's bound:
	// resolveToken returning in time is it not waiting for the child.
	type answer struct {
		tok string
		err error
	}
	done := make(chan answer, 1)
	go func() {
		tok, err := resolveToken(context.Background(), cfg, func(string) string { return "" })
		done <- answer{tok, err}
	}()
	var a answer
	returned := false
	select {
	case a = <-done:
		returned = true
	case <-time.After(mcptestutil.HangBound(0)):
	}
	pids := mcptestutil.ReadPidfile(t, pidfile, 5*time.Second)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if !returned {
		t.Fatalf("resolveToken still waiting after %s for the child holding stdout", mcptestutil.HangBound(0))
	}
	if a.err != nil || a.tok != "tok-5555" {
		t.Fatalf("got %q, %v", a.tok, a.err)
	}
}
