package eventlog

import (
	"sync"
	"testing"
)

// Running only asks whether a process holds a session, yet it takes the
// lock for a moment to find out: a process that locks the session in
// that moment (a gateway starting again on its session, while latch
// inbox or latch approvals asks every quarter second whether it runs)
// must still get it, not be told the session is open elsewhere.
func TestLockSessionWhileRunningIsAsked(t *testing.T) {
	dir := t.TempDir()
	const id = "20260101-000000-abcdef"
	l, err := LockSession(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					Running(dir, id)
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 300 {
		l, err := LockSession(dir, id)
		if err != nil {
			t.Fatalf("lock %d, with Running asked meanwhile: %v", i, err)
		}
		if !Running(dir, id) {
			t.Fatalf("lock %d: Running says no one holds the session", i)
		}
		l.Release()
	}
}

// A session a process holds stays refused to another, Running asked or
// not.
func TestLockSessionHeldIsRefused(t *testing.T) {
	dir := t.TempDir()
	const id = "20260101-000000-abcdef"
	l, err := LockSession(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := LockSession(dir, id); err == nil {
		t.Fatal("a second lock of a held session was given")
	}
}
