package eventlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrSessionBusy means another latch process holds the session.
var ErrSessionBusy = errors.New("is open in another latch")

// SessionLock is one process's claim on one session: the only writer of
// its log, for as long as the process holds the session. It is taken
// before the log is read, so what a process read is what is on disk while
// it decides (a second process would otherwise approve, or run, what the
// first already did). The lock is the operating system's (flock, or
// LockFileEx on Windows) on <id>.lock, so it ends with the process however
// it ends; the file holds the holder's pid, for the message.
type SessionLock struct{ f *os.File }

// LockSession takes the session's lock, or says who holds it.
func LockSession(dir, id string) (*SessionLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session log folder %s: %w", dir, err)
	}
	path := filepath.Join(dir, id+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session lock %s: %w", path, err)
	}
	if err := lockSoon(f); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		_ = f.Close() // not ours: nothing was written to it
		holder := "another process"
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n]))); err == nil && pid > 0 {
			holder = "pid " + strconv.Itoa(pid)
		}
		return nil, fmt.Errorf("session %s %w (%s): quit it there first", id, ErrSessionBusy, holder)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &SessionLock{f: f}, nil
}

// probeBound is how long LockSession keeps trying a lock it finds
// taken. Running takes the lock for a moment to see whether anyone holds
// it, and latch inbox and latch approvals ask it of every session with
// waiting calls, several times a second: a gateway started again on its
// session in that moment would otherwise be told the session is open in
// another latch, and not start. A process that holds the session holds
// it for far longer than the bound.
const probeBound = 250 * time.Millisecond

// lockSoon takes f's lock, trying again for up to probeBound while it is
// taken (by a Running that holds it for a moment, or by a holder).
func lockSoon(f *os.File) error {
	deadline := time.Now().Add(probeBound)
	pause := time.Millisecond
	for {
		err := tryLock(f)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, 32*time.Millisecond)
	}
}

// Release gives the session up. The file stays: removing it would race
// with a process that just opened it to lock it.
func (l *SessionLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	unlock(l.f)
	_ = l.f.Close() // the lock is released; the pid was already cut
	l.f = nil
}

// LockPath takes the OS lock on the file at path (made 0600 if need be),
// waiting for another process that holds it, and returns its release.
func LockPath(path string) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := waitLock(f); err != nil {
		_ = f.Close() // not locked: nothing to release
		return nil, err
	}
	return func() {
		unlock(f)
		_ = f.Close() // the lock is released with it
	}, nil
}

// Running says whether a latch process holds the session now (it holds the
// session's lock: LockSession). It finds out by taking the lock for a
// moment when no one holds it; LockSession keeps trying through such a
// moment (probeBound).
func Running(logDir, sessionID string) bool {
	f, err := os.OpenFile(filepath.Join(logDir, sessionID+".lock"), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // only tried
	if tryLock(f) != nil {
		return true
	}
	unlock(f)
	return false
}
