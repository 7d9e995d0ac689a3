//go:build !windows

package cli

import (
	"io"
	"os"
	"syscall"
)

// pollableStdin is stdin for latch serve --stdio read through Go's
// network poller when it is a pipe or a socket, as a client that starts
// latch gives it: a goroutine waiting for the client's next line is then
// parked, where a blocking read(2) held a thread in a system call that
// the runtime's monitor took back each time (with 32 calls in flight,
// about a sixth of latch's CPU went to that monitor waking every 20 µs).
// The descriptor is made non-blocking until restore, which serve calls
// as it ends, for whoever shares it. Anything else (a terminal, a file,
// not an *os.File) is read as it is.
func pollableStdin(in io.Reader) (r io.Reader, restore func()) {
	f, ok := in.(*os.File)
	if !ok {
		return in, func() {}
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return in, func() {}
	}
	fd := int(f.Fd()) // makes f blocking again, which is as it was
	if syscall.SetNonblock(fd, true) != nil {
		return in, func() {}
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		_ = syscall.SetNonblock(fd, false)
		return in, func() {}
	}
	// The duplicate shares the descriptor's non-blocking flag; os.NewFile
	// sees it and reads the duplicate through the poller.
	p := os.NewFile(uintptr(dup), f.Name())
	return p, func() {
		_ = p.Close()
		_ = syscall.SetNonblock(fd, false)
	}
}
