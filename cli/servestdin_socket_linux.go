package cli

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// socketReader reads a socket that stdin is, whose flags latch must not
// change (they are the description's, shared with the client), through
// Go's poller all the same: ep is an epoll instance of latch's own that
// watches the socket and is itself non-blocking, so the poller wakes a
// reader when the socket has something to read (an epoll descriptor is
// readable while one it watches is ready), and recv with MSG_DONTWAIT
// reads it without blocking whatever the socket's flags say.
type socketReader struct {
	fd int      // the socket: stdin, not owned
	ep *os.File // the epoll instance, in Go's poller
	rc syscall.RawConn
}

// newSocketReader watches the stream socket fd with an epoll instance
// of its own, or returns nil when it cannot or fd is another kind of
// socket (a datagram would be cut at the reader's buffer).
func newSocketReader(fd int, name string) *socketReader {
	if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ != unix.SOCK_STREAM {
		return nil
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
	if unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev) != nil || unix.SetNonblock(epfd, true) != nil {
		_ = unix.Close(epfd)
		return nil
	}
	ep := os.NewFile(uintptr(epfd), name+" (epoll)")
	rc, err := ep.SyscallConn()
	// A deadline can be set only on a file in the poller.
	if err != nil || ep.SetReadDeadline(time.Time{}) != nil {
		_ = ep.Close()
		return nil
	}
	return &socketReader{fd: fd, ep: ep, rc: rc}
}

// Read reads what the socket has, waiting in the poller while it has
// nothing; 0 bytes from the socket is the end (io.EOF).
func (s *socketReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var err error
	werr := s.rc.Read(func(uintptr) bool {
		for {
			n, _, err = unix.Recvfrom(s.fd, p, unix.MSG_DONTWAIT)
			if err != unix.EINTR {
				return err != unix.EAGAIN
			}
		}
	})
	switch {
	case werr != nil: // ep closed (serve is done): with no deadline, the only way to fail a wait
		return 0, &os.PathError{Op: "read", Path: s.ep.Name(), Err: os.ErrClosed}
	case err != nil:
		return 0, &os.PathError{Op: "recv", Path: s.ep.Name(), Err: err}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
