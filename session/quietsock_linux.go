package session

import (
	"net"
	"syscall"
)

// quietLowat is the receive low-water mark a chat's socket has while the
// paced reader sleeps: the kernel wakes the process for the socket only
// once this much is queued, or the peer closes. 16 KB is far more than a
// model writes in one pace (a few KB at 1,000 tokens a second) and small
// enough that the kernel grows no buffer for it (it does for a mark
// above half the receive buffer).
const quietLowat = 16 << 10

// quietSocket is a chat stream's TCP socket, told by the paced reader
// when not to wake the process for what arrives.
//
// Go's network poller watches every socket, edge-triggered: each segment
// that arrives wakes the thread waiting in epoll, even while no goroutine
// waits to read it. A model's stream is a segment a token, so a chat
// whose reads were paced to every 16 ms still woke a thousand times a
// second (epoll, the scheduler, the runtime's monitor thread) to do
// nothing. With the low-water mark raised while the reader sleeps, the
// tokens wait in the socket without a wake-up; it is lowered again
// before every read, so a read never waits for more than one byte (a
// read that finds nothing parks as before, woken by the first byte).
type quietSocket struct{ rc syscall.RawConn }

// quietSocketOf is c's quietSocket, or nil when c is not a TCP socket
// (then hush and wake do nothing).
func quietSocketOf(c net.Conn) *quietSocket {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return &quietSocket{rc: rc}
}

// hush raises the low-water mark: what arrives waits unannounced.
func (q *quietSocket) hush() { q.lowat(quietLowat) }

// wake lowers the mark to one byte, as a socket has by default; the
// kernel announces at once what is already queued.
func (q *quietSocket) wake() { q.lowat(1) }

func (q *quietSocket) lowat(n int) {
	if q == nil {
		return
	}
	_ = q.rc.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
	})
}
