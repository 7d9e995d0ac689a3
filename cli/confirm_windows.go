//go:build windows

package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// openConsole opens the console's screen buffer for writing.
func openConsole() (*os.File, error) { return os.OpenFile("CONOUT$", os.O_WRONLY, 0) }

// flushInput throws away the console input events not read yet. Keys
// typed while the flush runs, or held in a terminal emulator's own buffer
// (ConPTY), may still arrive: it is what Windows allows.
func flushInput(f *os.File) error {
	return windows.FlushConsoleInputBuffer(windows.Handle(f.Fd()))
}
