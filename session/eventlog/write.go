package eventlog

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
)

// batch is the lines of the writes gathered while another batch was
// being written, written with one write(2) by one of their writers.
type batch struct {
	buf    []byte
	lines  int
	writes uint64        // how many writes gave lines to it
	wrote  chan struct{} // closed when its write(2) ended
	// Set before wrote is closed: its last write's number, the file it
	// went to, and why it failed.
	seq uint64
	f   *os.File
	err error
}

// keepBuf is the largest batch buffer kept for the next batch: a large
// event's buffer is left to the garbage collector.
const keepBuf = 64 << 10

// encoder encodes events into a buffer reused from one write to the next.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

// encode appends es to the encoder's buffer as lines, as Marshal encodes
// them (json.Encoder escapes HTML as json.Marshal does).
func (c *encoder) encode(es []Event) error {
	c.buf.Reset()
	for _, e := range es {
		start := c.buf.Len()
		if err := c.enc.Encode(e); err != nil {
			return err
		}
		line := c.buf.Bytes()[start:]
		if esc := escapeControls(line); &esc[0] != &line[0] {
			c.buf.Truncate(start)
			c.buf.Write(esc)
		}
	}
	return nil
}

// Write appends one event as a line (and syncs it when asked). A write
// that fails is cut back, so the log never holds half a line that a later
// one would be glued to; the event is lost, and the log is broken until a
// write works again. It reports how the log's health changed.
func (l *SessionLog) Write(e Event, sync bool) (LogChange, error) {
	return l.WriteAll([]Event{e}, sync)
}

// WriteAll appends events as lines in one write (and syncs them when
// asked): all or none of them are in the log.
//
// The lines are encoded before the lock is taken, and added to the open
// batch under it. If no batch is being written, the writer leads: it
// writes the open batch (its own lines), then each batch gathered
// meanwhile, one write(2) each, the lock not held, until none is left.
// Else it waits for its batch's write to end, and only then is it woken.
// A sync is shared the same way with the writes that asked for one at the
// same time (syncThrough).
func (l *SessionLog) WriteAll(es []Event, sync bool) (LogChange, error) {
	c := encoders.Get().(*encoder)
	if err := c.encode(es); err != nil {
		encoders.Put(c)
		return LogSame, err
	}
	l.mu.Lock()
	b := l.open
	if b == nil {
		b = &batch{buf: l.spare, wrote: make(chan struct{})}
		l.spare = nil
		l.open = b
	}
	b.buf = append(b.buf, c.buf.Bytes()...)
	b.lines += len(es)
	b.writes++
	if c.buf.Cap() <= keepBuf {
		encoders.Put(c)
	}
	if l.writing {
		l.mu.Unlock()
		<-b.wrote // its fields are set before
	} else {
		l.writing = true
		for l.open != nil {
			l.writeOpen()
		}
		l.writing = false
		l.mu.Unlock()
	}
	err := b.err
	if err == nil && sync {
		err = l.syncThrough(b.seq, b.f)
	}
	return l.health(err)
}

// writeOpen writes the open batch, with mu held on entry and on return
// but not across the write(2). A write that fails is cut back to the last
// whole line, and every write of the batch gets its error.
func (l *SessionLog) writeOpen() {
	b, f := l.open, l.f
	l.open, l.inflight = nil, b
	l.mu.Unlock()
	n, err := f.Write(b.buf)
	l.writes.Add(1)
	l.mu.Lock()
	if err != nil {
		if n == len(b.buf) {
			l.size += int64(n) // written: a write that says so and fails is kept
		} else {
			_ = os.Truncate(l.path, l.size) // no half line stays behind
		}
	} else {
		l.size += int64(n)
		l.seq += b.writes
		l.lines += b.lines
		crashAfter(l.lines)
	}
	b.seq, b.f, b.err = l.seq, f, err
	if cap(b.buf) <= keepBuf {
		l.spare = b.buf[:0]
	}
	b.buf, l.inflight = nil, nil
	close(b.wrote)
}

// fileIs reports whether the log still writes to f (SwapFile, tests
// only, changes it), without taking mu.
func (l *SessionLog) fileIs(f *os.File) bool { return l.file.Load() == f }
