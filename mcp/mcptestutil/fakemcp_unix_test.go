//go:build unix

package mcptestutil_test

import (
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// rawProc is the fake run directly, in its own process group.
type rawProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	exited chan struct{} // closed when Wait returns
	err    error         // Wait's error, once exited is closed
}

// startRaw runs the fake in its own process group with stdin on a pipe; the
// group is killed at cleanup.
func startRaw(t *testing.T, args ...string) *rawProc {
	t.Helper()
	p := &rawProc{stderr: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(mcptestutil.BuildFakeMCP(t), args...)
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	})
	mcptestutil.WaitFor(t, 5*time.Second, "fakemcp: ready", func() bool { return strings.Contains(p.stderr.String(), "fakemcp: ready") })
	return p
}

// exitsWithin reports whether the process exits within d, and its Wait error.
func (p *rawProc) exitsWithin(d time.Duration) (bool, error) {
	select {
	case <-p.exited:
		return true, p.err
	case <-time.After(d):
		return false, nil
	}
}

func TestFakeMCPIgnoreEOFAndTerm(t *testing.T) {
	t.Run("eof", func(t *testing.T) {
		p := startRaw(t, "-ignore-eof")
		p.stdin.Close()
		if exited, _ := p.exitsWithin(300 * time.Millisecond); exited {
			t.Fatal("exited at EOF despite -ignore-eof")
		}
		mcptestutil.WaitFor(t, 5*time.Second, "the -ignore-eof message", func() bool { return strings.Contains(p.stderr.String(), "stdin closed; ignoring it") })
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if exited, err := p.exitsWithin(2 * time.Second); !exited || err != nil {
			t.Fatalf("SIGTERM after EOF: exited=%v err=%v, want exit 0", exited, err)
		}
	})
	t.Run("eof+term", func(t *testing.T) {
		p := startRaw(t, "-ignore-eof", "-ignore-term")
		p.stdin.Close()
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		if exited, _ := p.exitsWithin(300 * time.Millisecond); exited {
			t.Fatal("exited on SIGTERM despite -ignore-term")
		}
	})
	t.Run("plain", func(t *testing.T) {
		p := startRaw(t)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if exited, err := p.exitsWithin(2 * time.Second); !exited || err != nil {
			t.Fatalf("SIGTERM: exited=%v err=%v, want exit 0", exited, err)
		}
		if !strings.Contains(p.stderr.String(), "fakemcp: got terminated, exiting") {
			t.Errorf("stderr: %q", p.stderr.String())
		}
	})
	t.Run("eof exits", func(t *testing.T) {
		p := startRaw(t)
		p.stdin.Close()
		if exited, err := p.exitsWithin(2 * time.Second); !exited || err != nil {
			t.Fatalf("EOF: exited=%v err=%v, want exit 0", exited, err)
		}
	})
}

func TestFakeMCPGrandchild(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	p := startRaw(t, "-grandchild", "-pidfile", pidfile)
	pids := mcptestutil.ReadPidfile(t, pidfile, 5*time.Second)
	if len(pids) != 2 || pids[0] != p.cmd.Process.Pid {
		t.Fatalf("pidfile %v, want [%d grandchild]", pids, p.cmd.Process.Pid)
	}
	for _, pid := range pids {
		if !mcptestutil.ProcessAlive(pid) {
			t.Fatalf("pid %d not alive", pid)
		}
	}
	if pgid, err := syscall.Getpgid(pids[1]); err != nil || pgid != p.cmd.Process.Pid {
		t.Fatalf("grandchild pgid %d (%v), want %d", pgid, err, p.cmd.Process.Pid)
	}
	// Killing only the direct child leaves the grandchild behind …
	_ = p.cmd.Process.Kill()
	<-p.exited
	if mcptestutil.WaitProcessGone(pids[1], 300*time.Millisecond) {
		t.Fatal("grandchild died with its parent")
	}
	// … and killing the group ends it.
	_ = syscall.Kill(-pids[0], syscall.SIGKILL)
	if !mcptestutil.WaitProcessGone(pids[1], 5*time.Second) {
		t.Fatal("grandchild outlived the process group kill")
	}
	if mcptestutil.ProcessAlive(pids[0]) {
		t.Fatal("fakemcp still alive")
	}
}
