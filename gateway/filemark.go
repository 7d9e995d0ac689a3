package gateway

import (
	"crypto/sha256"
	"io"
	"os"
	"time"

	"latch/fileinfo"
)

// racyWindow is how old a file's change time must be, when it is looked
// at, for its stat to be trusted to show the next change: a write within
// the same tick of the file system's clock (a second or two on some)
// leaves size, times and inode as they were, so until then the content is
// hashed on every look. (A variable for the tests only.)
var racyWindow = 2 * time.Second

// fileStamp is what a stat says of a file: a change of content shows in
// it (a new size, modification or change time, or a file put in its place)
// unless the change came within racyWindow of the last look.
type fileStamp struct {
	ok           bool // the path is a regular file that could be stat'ed
	size         int64
	mtime, ctime int64 // ns; ctime 0 where the platform has none
	dev, ino     uint64
}

// fileMark is a watched file as last looked at: its content's digest,
// and the stat taken just before it was read.
type fileMark struct {
	sum     [sha256.Size]byte
	stamp   fileStamp
	trusted bool // the stamp alone shows a change from here on
}

// stampOf stats path now.
func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}
	}
	s := fileStamp{ok: true, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	s.dev, s.ino = fileinfo.ID(fi)
	s.ctime = fileinfo.ChangeTime(fi)
	return s
}

// markFile stats path, then reads it (in that order: a write after the
// stat shows in the next stat, or the stamp is not trusted).
func markFile(path string) fileMark {
	now := time.Now()
	st := stampOf(path)
	return fileMark{sum: fileSum(path), stamp: st, trusted: trusted(st, now)}
}

// trusted says whether a stamp taken at now will show the next change: a
// regular file whose change time (which no writer can set back, unlike
// the modification time) is older than racyWindow. Where the platform
// gives no change time or inode (Windows), never: the file is hashed on
// every look, as before.
func trusted(st fileStamp, now time.Time) bool {
	return st.ok && st.ctime != 0 && st.ino != 0 && now.UnixNano()-st.ctime > int64(racyWindow)
}

// changed says whether the file at path may no longer be what m was
// read from: its stat differs, or its stamp is not trusted and its
// content's digest differs. A file whose digest is the same again is
// marked anew (so that, once old enough, it is only stat'ed).
func (m *fileMark) changed(path string) bool {
	now := time.Now()
	st := stampOf(path)
	if m.trusted && st == m.stamp {
		return false
	}
	if fileSum(path) != m.sum {
		return true
	}
	m.stamp, m.trusted = st, trusted(st, now)
	return false
}

// maxWatched bounds what fileSum reads of a file.
const maxWatched = 4 << 20

// fileSum is the digest of a file's content now, as far as maxWatched. A
// file that cannot be read, or is not a regular file (a FIFO would block
// every request), has the digest of nothing with a mark, so that its
// coming back counts as a change.
func fileSum(path string) [sha256.Size]byte {
	unreadable := sha256.Sum256([]byte("\x00unreadable\x00" + path))
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return unreadable
	}
	f, err := os.Open(path)
	if err != nil {
		return unreadable
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxWatched)); err != nil {
		return unreadable
	}
	return [sha256.Size]byte(h.Sum(nil))
}
