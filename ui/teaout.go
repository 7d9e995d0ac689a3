package ui

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/x/ansi"
)

// TeaOutput is the output to give Bubble Tea when the model draws its own
// frames on the terminal f (Options.Output): everything Bubble Tea writes
// reaches f (the alternate screen, the cursor, the mouse and paste modes)
// except its own frames, which would draw over the model's. With an
// empty view Bubble Tea still draws a frame after each resize: a blank
// row at the top, erased to its end.
//
// While Bubble Tea holds the alternate screen the terminal is asked for
// disambiguated keys (keysOn, see TeaInput), and told to stop before it
// leaves it: on a quit, a signal, a panic Bubble Tea recovers from, and a
// suspend alike, since each leaves the alternate screen. The kitty
// protocol keeps a stack of its modes per screen, so the request lives in
// the one it was pushed on.
//
// It is a terminal file to Bubble Tea (Fd), so the window size is still
// read from f.
func TeaOutput(f *os.File) io.ReadWriteCloser { return teaOutput{f} }

type teaOutput struct{ f *os.File }

func (o teaOutput) Write(p []byte) (int, error) {
	// In the alternate screen every frame of Bubble Tea's renderer, and
	// nothing else it writes, starts at the cursor's home and goes on.
	if len(p) > len(ansi.CursorHomePosition) && bytes.HasPrefix(p, []byte(ansi.CursorHomePosition)) {
		return len(p), nil
	}
	switch string(p) {
	case ansi.SetModeAltScreenSaveCursor:
		if _, err := o.f.Write(p); err != nil {
			return 0, err
		}
		_, err := o.f.WriteString(keysOn)
		return len(p), err
	case ansi.ResetModeAltScreenSaveCursor:
		if _, err := o.f.WriteString(keysOff); err != nil {
			return 0, err
		}
	}
	return o.f.Write(p)
}

func (o teaOutput) WriteString(s string) (int, error) { return o.Write([]byte(s)) }
func (o teaOutput) Read(p []byte) (int, error)        { return o.f.Read(p) }
func (o teaOutput) Close() error                      { return o.f.Close() }

// Fd is the terminal's file descriptor.
func (o teaOutput) Fd() uintptr { return o.f.Fd() }
