//go:build !windows

package procgroup

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startWithChild starts sh, which starts a background sleep and prints its
// pid; it returns the started command and the child's pid.
func startWithChild(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the child's pid %q: %v", line, err)
	}
	return pid
}

// waitGone waits (bounded) until pid no longer runs: gone, or a zombie
// that whoever it was reparented to has not reaped yet (Linux's /proc says
// so; elsewhere kill(pid, 0) failing is the sign).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d, a child of the group, is still running after the group was killed", pid)
}

func TestKillTakesTheChildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 600 & echo $!; wait")
	Own(cmd)
	child := startWithChild(t, cmd)
	Kill(cmd)
	_ = cmd.Wait()
	waitGone(t, child)
}

func TestCancelKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 600 & echo $!; wait")
	cmd.WaitDelay = time.Second
	KillOnCancel(cmd)
	child := startWithChild(t, cmd)
	cancel()
	_ = cmd.Wait()
	waitGone(t, child)
}

func TestSignalBeforeStartDoesNothing(t *testing.T) {
	cmd := exec.Command("true")
	Signal(cmd, false) // must not panic nor signal group 0
	Kill(cmd)
}
