package cli

import (
	"os"

	"github.com/muesli/cancelreader"
)

// typedInput is the terminal's input for Bubble Tea with the keys a
// terminal query read first (typed while latch waited for the terminal's
// answer, before the screen opened): Read gives them, then what the
// terminal sends.
//
// It has the terminal's Fd, so that Bubble Tea puts the terminal in raw
// mode and restores it, but no Name: Bubble Tea's reader then calls Read
// without first waiting for the terminal to be readable (it would wait,
// with the typed keys held here, for the next key). Reads of the terminal
// go through a reader of its own that stop cancels, so that no read is
// left waiting on the terminal once the screen is gone.
type typedInput struct {
	f     *os.File
	typed []byte
	cr    cancelreader.CancelReader
}

// newTypedInput is f's input after typed; f itself when nothing was
// typed, with a stop that does nothing. stop ends a read of the terminal
// still under way: call it once the screen is gone.
func newTypedInput(f *os.File, typed []byte) (in termFile, stop func()) {
	if len(typed) == 0 {
		return f, func() {}
	}
	t := &typedInput{f: f, typed: typed}
	if cr, err := cancelreader.NewReader(f); err == nil {
		t.cr = cr
		return t, func() { cr.Cancel() }
	}
	return t, func() {} // read plainly: a read may be left waiting
}

// termFile is what Bubble Tea takes for a terminal's input: a reader
// with the terminal's descriptor.
type termFile interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	Close() error
	Fd() uintptr
}

// Read gives the typed keys, then what the terminal sends.
func (t *typedInput) Read(p []byte) (int, error) {
	if len(t.typed) > 0 {
		n := copy(p, t.typed)
		t.typed = t.typed[n:]
		return n, nil
	}
	if t.cr == nil {
		return t.f.Read(p)
	}
	return t.cr.Read(p)
}

// Write writes to the terminal.
func (t *typedInput) Write(p []byte) (int, error) { return t.f.Write(p) }

// Close closes nothing: the terminal is the caller's, and its reader may
// still be in a read until stop cancels it.
func (t *typedInput) Close() error { return nil }

// Fd is the terminal's descriptor.
func (t *typedInput) Fd() uintptr { return t.f.Fd() }
