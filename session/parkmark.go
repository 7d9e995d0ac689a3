package session

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"strings"

	"latch/fileinfo"
	"latch/session/eventlog"
)

// A parkMark says, of a session log up to some size, which of its lines
// bear on its parked calls (parkedState.line): reading only them gives
// what reading the whole log up to there gives. It is kept beside the
// log (ID.parkmark) so that a gateway's start, which reads its last
// run's parked calls, costs the same at any length of the log: it reads
// the marked lines, then what the log gained since. The log stays the
// truth: the mark holds where lines are, never what they say, and it is
// taken only for the log it was made of (the same file, grown from its
// size with the bytes before that size unchanged, or with that size and
// not modified since); a marked line that is no longer a whole line
// bearing on a call means the log changed, and it is read whole. A mark
// missing, unreadable or not of this log is the same as none.
type parkMark struct {
	dev, ino    uint64
	size, mtime int64
	tail        []byte // the bytes before size
	lines       []span
}

// span is a marked line: where it starts and its length, newline included.
type span struct{ off, n int64 }

// markMagic starts a mark file (its format's version in the last byte).
const markMagic = "latchpm1"

// markTail is how many bytes before a mark's size it keeps.
const markTail = 64

// markEvery is how much more of a log a reading must have read past its
// mark (or from the start) to write a new one.
var markEvery int64 = 256 << 10

// markPath is the mark file of the log at path.
func markPath(logPath string) string {
	return strings.TrimSuffix(logPath, ".jsonl") + ".parkmark"
}

// encode is the mark's file.
func (m parkMark) encode() []byte {
	b := []byte(markMagic)
	b = binary.AppendUvarint(b, m.dev)
	b = binary.AppendUvarint(b, m.ino)
	b = binary.AppendUvarint(b, uint64(m.size))
	b = binary.AppendUvarint(b, uint64(m.mtime))
	b = binary.AppendUvarint(b, uint64(len(m.tail)))
	b = append(b, m.tail...)
	b = binary.AppendUvarint(b, uint64(len(m.lines)))
	prev := int64(0)
	for _, s := range m.lines {
		b = binary.AppendUvarint(b, uint64(s.off-prev))
		b = binary.AppendUvarint(b, uint64(s.n))
		prev = s.off + s.n
	}
	return b
}

var errBadMark = errors.New("not a park mark")

// decodeMark reads a mark file; its lines are checked to be in order,
// apart, and within its size.
func decodeMark(b []byte) (parkMark, error) {
	var m parkMark
	if !bytes.HasPrefix(b, []byte(markMagic)) {
		return m, errBadMark
	}
	b = b[len(markMagic):]
	next := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	m.dev, m.ino, m.size, m.mtime = next(), next(), int64(next()), int64(next())
	t := next()
	if b == nil || t > uint64(len(b)) || t > markTail {
		return m, errBadMark
	}
	m.tail, b = bytes.Clone(b[:t]), b[t:]
	count := next()
	if b == nil || count > uint64(len(b)) { // two bytes at least a line
		return m, errBadMark
	}
	m.lines = make([]span, 0, count)
	prev := int64(0)
	for range count {
		off, n := prev+int64(next()), int64(next())
		if b == nil || n <= 0 || off < prev || off+n > m.size {
			return m, errBadMark
		}
		m.lines = append(m.lines, span{off, n})
		prev = off + n
	}
	if len(b) != 0 {
		return m, errBadMark
	}
	return m, nil
}

// readMark is the mark of the log at path, if one is there and reads.
func readMark(logPath string) (parkMark, bool) {
	b, err := os.ReadFile(markPath(logPath))
	if err != nil {
		return parkMark{}, false
	}
	m, err := decodeMark(b)
	return m, err == nil
}

// fits says whether the mark was made of the log f is (fi its stat now):
// the same file, grown from the mark's size with the bytes just before it
// unchanged, or of that size and not modified since.
func (m parkMark) fits(f *os.File, fi fs.FileInfo) bool {
	dev, ino := fileinfo.ID(fi)
	if dev != m.dev || ino != m.ino || fi.Size() < m.size ||
		fi.Size() == m.size && fi.ModTime().UnixNano() != m.mtime {
		return false
	}
	return bytes.Equal(tailOf(f, m.size), m.tail)
}

// tailOf is the up to markTail bytes of f before offset end.
func tailOf(f *os.File, end int64) []byte {
	b := make([]byte, min(markTail, end))
	if _, err := f.ReadAt(b, end-int64(len(b))); err != nil {
		return nil
	}
	return b
}

// replay reads the marked lines of f into st. It says false when one of
// them is not a whole line that bears on a call (the log changed under
// the mark): st is then of no use.
func (st *parkedState) replay(f *os.File, m parkMark) bool {
	var buf []byte
	at := int64(-1) // where buf starts in f
	for _, s := range m.lines {
		lo := max(s.off-1, 0) // with the newline before it
		hi := s.off + s.n
		if at < 0 || lo < at || hi > at+int64(len(buf)) {
			size := min(max(hi-lo, 64<<10), m.size-lo)
			if int64(cap(buf)) < size {
				buf = make([]byte, size)
			}
			buf = buf[:size]
			if _, err := f.ReadAt(buf, lo); err != nil {
				return false
			}
			at = lo
		}
		line := buf[s.off-at : hi-at]
		if s.off > 0 && buf[s.off-1-at] != '\n' || line[len(line)-1] != '\n' || !st.line(line) {
			return false
		}
	}
	return true
}

// writeMark keeps the mark of the log f is, read up to size with the
// marked lines given. A mark that cannot be written is no error: the
// next reading reads more.
func writeMark(logPath string, f *os.File, size int64, lines []span) {
	fi, err := f.Stat()
	if err != nil {
		return
	}
	dev, ino := fileinfo.ID(fi)
	m := parkMark{dev: dev, ino: ino, size: size, tail: tailOf(f, size), lines: lines}
	if fi.Size() == size {
		m.mtime = fi.ModTime().UnixNano()
	}
	_ = eventlog.WriteFileAtomic(markPath(logPath), m.encode(), 0o600)
}
