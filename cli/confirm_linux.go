//go:build linux

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// openConsole opens the process's terminal for writing.
func openConsole() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_WRONLY, 0) }

// flushInput throws away what was typed on the terminal f and not read
// yet (tcflush TCIFLUSH).
func flushInput(f *os.File) error {
	return unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
