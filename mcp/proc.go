package mcp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"time"

	"latch/procgroup"
)

// Shutdown timing of a stdio server: after its stdin closes it has
// stopGrace to exit by itself, then it and its process group get SIGTERM,
// then after termGrace SIGKILL. Whatever of the group outlives the leader
// is killed too, so wrappers like npx leave no orphans.
var (
	stopGrace = 500 * time.Millisecond
	termGrace = 1 * time.Second
)

// process is a running stdio server.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	stderr *os.File
	exited chan struct{} // closed when the leader has exited and been reaped
	mu     sync.Mutex
	err    error // the leader's exit error, once exited

	stopOnce sync.Once
	// onStopped, if set before stop is first called, runs once the
	// process and its group are gone (the manager's registry forgets it).
	onStopped func()
}

// startProcess starts c's command in its own process group, with pipes we
// own (so exec.Cmd.Wait never closes what the MCP transport still reads).
// Its environment is childEnv's, without what latch holds for itself
// (Held): not latch's whole environment.
func startProcess(c ServerConfig) (*process, error) {
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Env = c.held.withoutHeld(childEnv(os.Environ(), c, c.secretVars), hostEnv.fold)
	cmd.Dir = c.Cwd
	procgroup.Own(cmd)

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeQuietly(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeQuietly(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeQuietly(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("cannot start %s: %w", c.Command, unwrapExec(err))
	}
	// The child has its ends; close ours so EOF arrives when it exits.
	closeQuietly(inR, outW, errW)
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.exited)
	}()
	return p, nil
}

func unwrapExec(err error) error {
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee):
		return ee.Err
	case errors.As(err, &pe):
		return pe.Err
	}
	return err
}

// exitStatus describes how the leader ended: "exit status 3", "signal: killed".
func (p *process) exitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		return "exit status 0"
	}
	return p.err.Error()
}

// stop ends the server and its process group: stdin closed, a grace to
// exit, SIGTERM, then SIGKILL. It returns once the leader is reaped (at
// most stopGrace+termGrace plus a moment). It is safe to call more than
// once and from several goroutines: every call returns when the first is
// done.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.doStop()
		if p.onStopped != nil {
			p.onStopped()
		}
	})
}

func (p *process) doStop() {
	closeQuietly(p.stdin)
	if !p.wait(stopGrace) {
		procgroup.Signal(p.cmd, false)
		if !p.wait(termGrace) {
			procgroup.Signal(p.cmd, true)
			p.wait(2 * time.Second)
		}
	}
	// Anything of the group still alive is an orphan now.
	procgroup.Kill(p.cmd)
	closeQuietly(p.stdout, p.stderr)
}

// closeQuietly closes pipe ends. A pipe's close can only fail for a
// descriptor already closed, and then there is nothing left to release.
func closeQuietly(fs ...io.Closer) {
	for _, f := range fs {
		_ = f.Close()
	}
}

func (p *process) wait(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}
