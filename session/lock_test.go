package session_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"latch/session"
)

// TestOneWriterPerSession: while one Session holds a logged session, a
// second Resume of it is refused with the holder's pid; once the first is
// closed, it opens.
func TestOneWriterPerSession(t *testing.T) {
	dir := t.TempDir()
	const id = "20261201-000000-lock00"
	first := session.New(session.Options{ID: id, LogDir: dir})
	first.Start()
	_, _, err := session.Resume(session.Options{}, dir, id)
	if !errors.Is(err, session.ErrSessionBusy) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Resume while the first is open: %v", err)
	}
	first.Close()
	second, _, err := session.Resume(session.Options{}, dir, id)
	if err != nil {
		t.Fatalf("Resume after the first closed: %v", err)
	}
	second.Close()
}
