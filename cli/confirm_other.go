//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !windows

package cli

import "os"

// openConsole opens the process's terminal for writing.
func openConsole() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_WRONLY, 0) }

// flushInput does nothing here: this system has no way latch knows of to
// throw away what was typed before the question, so it counts.
func flushInput(*os.File) error { return nil }
