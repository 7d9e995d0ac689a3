package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// SessionLog is a session's append-only JSONL file. The session says
// which events are written and which are synced before it goes on
// (session.logged): deltas are not written; finished messages are;
// decisions, parked approvals and the start and end of tool calls are
// synced.
//
// Writes share their system calls (write.go): lines given while another
// write(2) is under way are gathered and written together by one of their
// writers, and writes that ask for a sync at about the same time share
// one fsync (group commit). No lock is held across either system call,
// and none returns before its lines are written (and, when asked, on
// disk), as when each wrote and synced alone.
type SessionLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
	size int64  // bytes of whole lines written: a failed write is cut back to it
	seq  uint64 // writes done, the last one's number
	// lines is how many lines this log object wrote (for the crash
	// test's count: crash.go).
	lines int
	// open gathers the lines given while a batch is being written (nil
	// when none wait); writing is set while a writer leads (write.go),
	// and inflight is the batch in write(2) (nil when none is); spare is
	// a written batch's buffer, kept for the next one.
	open     *batch
	writing  bool
	inflight *batch
	spare    []byte
	// syncing, while a sync is under way, is closed when it ends.
	// (All of the above under mu.)
	syncing chan struct{}
	// synced is the number of the last write a sync that worked
	// covered (stored under mu, read without it); file is f, read
	// without mu.
	synced atomic.Uint64
	file   atomic.Pointer[os.File]
	syncs  atomic.Int64 // fsyncs done, for the tests
	writes atomic.Int64 // write(2) calls done, for the tests
	// soon is set while a sync asked for by SyncSoon is pending.
	soon atomic.Bool
	// err is why the last write failed (nil while writing works). It is
	// read without mu, so that the status line never waits for a sync.
	err atomic.Pointer[error]
}

// OpenLog opens (or creates, 0600 in a 0700 folder) the log of session id
// in dir, its torn last line repaired first (endTornLine).
func OpenLog(dir, id string) (*SessionLog, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session log folder %s: %w", dir, err)
	}
	_ = os.Chmod(dir, 0o700)
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session log %s: %w", path, err)
	}
	_ = f.Chmod(0o600)
	if err := endTornLine(f, path); err != nil {
		_ = f.Close() // nothing was written through it yet
		return nil, fmt.Errorf("session log %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close() // nothing was written through it yet
		return nil, fmt.Errorf("session log %s: %w", path, err)
	}
	l := &SessionLog{f: f, path: path, size: fi.Size()}
	l.file.Store(f)
	return l, nil
}

// endTornLine makes a resumed log end with a whole line before anything is
// appended to it. A last line without its newline is what a crash in
// mid-write leaves: LoadLog skips it (with a warning) when it does not
// parse, so it is cut off; one that parses was read as an event, so it gets
// its newline. Otherwise the next event would be glued onto it, and the
// torn line, no longer the last, would make the whole log unreadable
// (ErrCorruptLog).
func endTornLine(f *os.File, path string) error {
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }() // read only
	fi, err := r.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	// A tail of NUL bytes (a power loss: the file grew, its data never
	// came) was skipped as torn by LoadLog: cut it off, so what is
	// appended starts a line of its own (nulTail ends at a line's start).
	if start, ok, err := nulTail(r, size); err != nil || ok {
		if err != nil {
			return err
		}
		return f.Truncate(start)
	}
	last := make([]byte, 1)
	if size == 0 {
		return nil
	}
	if _, err := r.ReadAt(last, size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	// Find where the last line starts, reading backwards.
	start := int64(0)
	buf := make([]byte, 32<<10)
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := r.ReadAt(buf[:n], end-n); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = end - n + int64(i) + 1
			break
		}
		end -= n
	}
	line := make([]byte, size-start)
	if _, err := r.ReadAt(line, start); err != nil {
		return err
	}
	var head Header
	if json.Unmarshal(line, &head) == nil {
		_, err = f.Write([]byte("\n"))
		return err
	}
	return f.Truncate(start)
}

// LogChange is what a write did to the log's health.
type LogChange int

// What a write did to the log's health.
const (
	LogSame      LogChange = iota
	LogBroke               // this write failed, the last one had not
	LogRecovered           // this write worked, the last one had not
)

// health records the outcome of a write (nil: it worked) and says how
// the log's health changed with it.
func (l *SessionLog) health(err error) (LogChange, error) {
	if err != nil {
		if l.err.Swap(&err) == nil {
			return LogBroke, err
		}
		return LogSame, err
	}
	if l.err.Swap(nil) != nil {
		return LogRecovered, nil
	}
	return LogSame, nil
}

// Broken returns why the last write failed, or nil. It never waits.
func (l *SessionLog) Broken() error {
	if p := l.err.Load(); p != nil {
		return *p
	}
	return nil
}

// SoonDelay is how long after SyncSoon the log is synced at the latest,
// when no other write's sync covered its lines before.
const SoonDelay = 10 * time.Millisecond

// SyncSoon has the writes done so far synced within SoonDelay, without
// waiting: a sync another write asks for in the meantime covers them (the
// next gateway call's "allowed", usually), else a sync of their own. A
// kill -9 loses nothing written (the system holds it); a power loss
// within the delay can.
func (l *SessionLog) SyncSoon() {
	if l.soon.Swap(true) {
		return // a pending sync will cover these writes too
	}
	time.AfterFunc(SoonDelay, func() {
		l.soon.Store(false)
		l.mu.Lock()
		seq, f := l.seq, l.f
		l.mu.Unlock()
		_ = l.syncThrough(seq, f) // a failure shows at the next synced write
	})
}

// Close closes the log file, syncing first what was written and not yet
// synced (SyncSoon's lines).
func (l *SessionLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.inflight != nil || l.syncing != nil { // a write or sync under way ends first
		wait := l.syncing
		if l.inflight != nil {
			wait = l.inflight.wrote
		}
		l.mu.Unlock()
		<-wait
		l.mu.Lock()
	}
	if l.synced.Load() < l.seq {
		_ = l.f.Sync()
		l.synced.Store(l.seq)
	}
	return l.f.Close()
}

// Path is the log file's path.
func (l *SessionLog) Path() string { return l.path }

// SwapFile puts f in the place of the file the log writes to and returns
// the one it replaced. The session's tests use it to put a log on a full
// disk (/dev/full) and back; nothing else should.
func (l *SessionLog) SwapFile(f *os.File) *os.File {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.f
	l.f = f
	l.file.Store(f)
	return old
}
