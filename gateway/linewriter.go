package gateway

import (
	"io"
	"sync"
)

// lineWriter writes the messages of the stdio client's answers to its
// stdout, each whole, for mcp-go's writes and the gateway's to share it.
// With many calls in flight their answers come together: a message
// written while another write(2) is under way is queued, and the writer
// under way writes everything queued with one more write(2) before it
// returns, so that the client reads many answers at once and latch makes
// a system call per batch rather than per answer. A queued message's
// Write returns at once (in order after the one under way); past
// maxQueued bytes queued it waits, so that a client that stops reading
// holds up its answers rather than filling memory. Once a write fails,
// every later one fails with its error (the client has gone).
type lineWriter struct {
	w io.Writer

	mu      sync.Mutex
	drained sync.Cond // signalled when the queue is taken to be written
	writing bool
	queued  []byte
	spare   []byte // the last batch's buffer, for the next queue
	err     error
}

// maxQueued is how many bytes of answers may wait for the write under
// way before a writer waits too.
const maxQueued = 1 << 20

// keepQueue is the largest batch buffer kept for the next queue.
const keepQueue = 64 << 10

// newLineWriter writes messages to w.
func newLineWriter(w io.Writer) *lineWriter {
	l := &lineWriter{w: w}
	l.drained.L = &l.mu
	return l
}

// Write writes p, a whole message, or queues it behind the write under
// way (see lineWriter).
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	for l.writing && l.err == nil && len(l.queued) >= maxQueued {
		l.drained.Wait()
	}
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return 0, err
	}
	if l.writing {
		l.queued = append(l.queued, p...)
		l.mu.Unlock()
		return len(p), nil
	}
	l.writing = true
	l.mu.Unlock()
	_, own := l.w.Write(p)
	err := own
	l.mu.Lock()
	for err == nil && len(l.queued) > 0 {
		batch := l.queued
		l.queued = l.spare[:0]
		l.spare = nil
		l.drained.Broadcast()
		l.mu.Unlock()
		_, err = l.w.Write(batch)
		l.mu.Lock()
		if cap(batch) <= keepQueue {
			l.spare = batch
		}
	}
	if err != nil {
		l.err, l.queued = err, nil
		l.drained.Broadcast()
	}
	l.writing = false
	l.mu.Unlock()
	if own != nil {
		return 0, own
	}
	return len(p), nil
}
