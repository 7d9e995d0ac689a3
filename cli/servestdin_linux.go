package cli

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pollableStdin is stdin for latch serve --stdio read through Go's
// network poller when it is a pipe or a socket, as a client that starts
// latch gives it: a goroutine waiting for the client's next line is then
// parked, where a blocking read(2) held a thread in a system call that
// the runtime's monitor took back each time (with 32 calls in flight,
// about a sixth of latch's CPU went to that monitor waking every 20 µs).
//
// Stdin's own flags are never changed: O_NONBLOCK belongs to the open
// file description, which the client and any other process holding the
// pipe share, and a latch killed (kill -9, the OOM killer) could not set
// it back. A pipe or a FIFO is opened again through /proc/self/fd, which
// gives a description of latch's own, non-blocking (reopenPipe); a socket
// cannot be opened so, and is read with recv(MSG_DONTWAIT), woken by the
// poller through an epoll instance of latch's own (socketReader).
// Anything else, or either when it fails, is read as it is, with
// blocking reads. The reader lives until done, which serve calls as it
// ends: it closes what was opened, and stdin stays as it was.
func pollableStdin(in io.Reader) (r io.Reader, done func()) {
	f, ok := in.(*os.File)
	if !ok {
		return in, func() {}
	}
	st, err := f.Stat()
	if err != nil {
		return in, func() {}
	}
	fd, ok := rawFd(f)
	if !ok {
		return in, func() {}
	}
	switch {
	case st.Mode()&os.ModeNamedPipe != 0:
		if p := reopenPipe(fd, f.Name()); p != nil {
			return p, func() { _ = p.Close() }
		}
	case st.Mode()&os.ModeSocket != 0:
		if s := newSocketReader(fd, f.Name()); s != nil {
			return s, func() { _ = s.ep.Close() }
		}
	}
	return in, func() {}
}

// rawFd is f's descriptor, taken without Fd (which may change its
// flags).
func rawFd(f *os.File) (int, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	fd := -1
	if rc.Control(func(u uintptr) { fd = int(u) }) != nil || fd < 0 {
		return 0, false
	}
	return fd, true
}

// reopenPipe opens the pipe or FIFO fd reads from again, read-only and
// non-blocking, as a description of this process's own (opening
// /proc/self/fd/N does not duplicate N's description, as dup does, but
// opens the pipe anew), or returns nil: fd is not open for reading, /proc
// is not there, or what opened is not the same pipe.
func reopenPipe(fd int, name string) *os.File {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_ACCMODE == unix.O_WRONLY {
		return nil
	}
	nfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	var was, is unix.Stat_t
	if unix.Fstat(fd, &was) != nil || unix.Fstat(nfd, &is) != nil || was.Dev != is.Dev || was.Ino != is.Ino {
		_ = unix.Close(nfd)
		return nil
	}
	// NewFile sees the flag and reads it through the poller.
	return os.NewFile(uintptr(nfd), name)
}
