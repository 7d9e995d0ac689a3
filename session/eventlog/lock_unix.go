//go:build !windows

package eventlog

import (
	"os"

	"golang.org/x/sys/unix"
)

// tryLock takes f's exclusive lock without waiting.
func tryLock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

func unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// waitLock takes f's exclusive lock, waiting for it.
func waitLock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }
