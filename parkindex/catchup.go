package parkindex

import (
	"bufio"
	"bytes"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"latch/fileinfo"
	"latch/session"
)

// tailLen is how many bytes before where a log was read are kept, to see
// that the log is still the one read.
const tailLen = 64

// progressFrom is the catch-up, in bytes to read, that says its progress.
const progressFrom = 8 << 20

// logState is how far a session log was read, and what it was then.
type logState struct {
	dev, ino    uint64
	size, mtime int64
	tail        []byte
}

// logFile is a session log in the folder now.
type logFile struct {
	id   string
	path string
	st   logState // dev, ino, size and mtime as stat says now
}

// CatchUp brings the index up to the session logs: of a log that grew,
// it reads only what was added; a log truncated, replaced or changed in
// place since is read again whole; a log removed takes its calls with
// it. When no log changed it reads nothing but the logs' stat.
func (x *Index) CatchUp() error {
	now, err := x.logsNow()
	if err != nil {
		return err
	}
	known, err := loadStates(x.db)
	if err != nil {
		return err
	}
	x.lastRead = 0
	if !changed(now, known) {
		return nil
	}
	tx, err := x.db.Begin() // immediate: one process catches up at a time
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // after Commit, nothing to undo
	// Another process may have caught up while this one waited.
	if known, err = loadStates(tx); err != nil {
		return err
	}
	c := catchUp{tx: tx, why: map[string]whyRow{}}
	if err := tx.QueryRow("UPDATE meta SET gen = gen + 1 RETURNING gen").Scan(&c.gen); err != nil {
		return err
	}
	for id := range known {
		if _, ok := now[id]; !ok {
			if err := c.forget(id); err != nil {
				return err
			}
		}
	}
	var todo []logFile
	var total int64
	for id, f := range now {
		k, ok := known[id]
		if ok && k.same(f.st) {
			continue
		}
		todo = append(todo, f)
		total += f.st.size - k.size
	}
	if total >= progressFrom && x.opts.Progress != nil {
		c.progress, c.total = x.opts.Progress, total
	}
	for _, f := range todo {
		k, ok := known[f.id]
		if err := c.log(f, k, ok); err != nil {
			return err
		}
	}
	x.lastRead = c.done
	if err := c.flushWhy(); err != nil {
		return err
	}
	if c.progress != nil {
		c.progress(c.total, c.total)
	}
	return tx.Commit()
}

// logsNow stats the session logs in the folder.
func (x *Index) logsNow() (map[string]logFile, error) {
	paths, err := filepath.Glob(filepath.Join(x.dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := map[string]logFile{}
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		fi, err := os.Stat(p)
		if !session.ValidID(id) || err != nil || !fi.Mode().IsRegular() {
			continue
		}
		dev, ino := fileinfo.ID(fi)
		out[id] = logFile{id: id, path: p, st: logState{dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime().UnixNano()}}
	}
	return out, nil
}

// querier is a database or a transaction.
type querier interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// loadStates reads how far each log was read.
func loadStates(q querier) (map[string]logState, error) {
	rows, err := q.Query("SELECT session, dev, ino, size, mtime, tail FROM logs")
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	out := map[string]logState{}
	for rows.Next() {
		var id string
		var s logState
		var dev, ino int64
		if err := rows.Scan(&id, &dev, &ino, &s.size, &s.mtime, &s.tail); err != nil {
			return nil, err
		}
		s.dev, s.ino = uint64(dev), uint64(ino)
		out[id] = s
	}
	return out, rows.Err()
}

// changed says whether any log differs from what the index read.
func changed(now map[string]logFile, known map[string]logState) bool {
	if len(now) != len(known) {
		return true
	}
	for id, f := range now {
		k, ok := known[id]
		if !ok || !k.same(f.st) {
			return true
		}
	}
	return false
}

// same says whether the log is as it was read: the same file, size and
// modification time.
func (s logState) same(now logState) bool {
	return s.dev == now.dev && s.ino == now.ino && s.size == now.size && s.mtime == now.mtime
}

// catchUp is one catch-up's transaction and what it carries between
// lines.
type catchUp struct {
	tx    *sql.Tx
	gen   int64 // this catch-up's number
	stmts map[string]*sql.Stmt
	why   map[string]whyRow // by session and call id: parked, not yet approval_parked

	progress    func(done, total int64)
	done, total int64
	said        int64
}

// whyRow is the permission event that parked a call.
type whyRow struct{ mode, rule string }

// forget removes a log's calls (the log is gone, or is read again).
func (c *catchUp) forget(id string) error {
	if _, err := c.tx.Exec("UPDATE meta SET reset = ?", c.gen); err != nil {
		return err
	}
	for _, q := range []string{"DELETE FROM calls WHERE session = ?", "DELETE FROM why WHERE session = ?", "DELETE FROM logs WHERE session = ?"} {
		if _, err := c.tx.Exec(q, id); err != nil {
			return err
		}
	}
	for k := range c.why {
		if strings.HasPrefix(k, id+"\x00") {
			delete(c.why, k)
		}
	}
	return nil
}

// log reads what the log f gained since k (known: read before), or all
// of it when it is not the log read then.
func (c *catchUp) log(f logFile, k logState, known bool) error {
	fh, err := os.Open(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return c.forget(f.id)
	}
	if err != nil {
		return nil // unreadable now: left as it was, tried again next time
	}
	defer func() { _ = fh.Close() }() // read only
	fi, err := fh.Stat()
	if err != nil {
		return nil
	}
	dev, ino := fileinfo.ID(fi)
	st := logState{dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	from := k.size
	if !known || !k.grownFrom(fh, st) {
		if err := c.forget(f.id); err != nil {
			return err
		}
		from = 0
	}
	end, err := c.read(f.id, fh, from, st.size)
	if err != nil {
		return err
	}
	tail := tailAt(fh, end)
	// The size kept is where reading stopped (a torn last line is read
	// again next time); the modification time is the one read, so a
	// change that keeps the size is seen.
	st.size = end
	_, err = c.tx.Exec(`INSERT INTO logs (session, dev, ino, size, mtime, tail) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (session) DO UPDATE SET dev = excluded.dev, ino = excluded.ino, size = excluded.size,
		mtime = excluded.mtime, tail = excluded.tail`,
		f.id, int64(st.dev), int64(st.ino), st.size, st.mtime, tail)
	return err
}

// grownFrom says whether the log is the one read before, with lines
// added after it at most: the same file, no shorter, its bytes before
// where reading stopped unchanged, and changed at all only if it grew.
func (s logState) grownFrom(fh *os.File, now logState) bool {
	if s.dev != now.dev || s.ino != now.ino || now.size < s.size {
		return false
	}
	if now.size == s.size && now.mtime != s.mtime {
		return false // written in place (an append grows it)
	}
	return bytes.Equal(tailAt(fh, s.size), s.tail)
}

// tailAt is the up to tailLen bytes of fh before offset end.
func tailAt(fh *os.File, end int64) []byte {
	n := min(int64(tailLen), end)
	b := make([]byte, n)
	if _, err := fh.ReadAt(b, end-n); err != nil {
		return nil
	}
	return b
}

// read applies the whole lines of fh from offset from up to size, and
// returns where the last whole line ends.
func (c *catchUp) read(id string, fh *os.File, from, size int64) (int64, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(fh, from, size-from), 1<<16)
	end := from
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: read it whole.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			return end, nil // the end, or a torn last line: read again next time
		}
		end += int64(len(line))
		if err := c.apply(id, line); err != nil {
			return end, err
		}
		c.moved(int64(len(line)))
	}
}

// moved says the progress, every 4 MiB.
func (c *catchUp) moved(n int64) {
	c.done += n
	if c.progress != nil && c.done-c.said >= 4<<20 {
		c.said = c.done
		c.progress(c.done, c.total)
	}
}
