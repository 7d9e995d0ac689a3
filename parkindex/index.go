package parkindex

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"

	// The driver registers itself as "sqlite".
	_ "modernc.org/sqlite"
)

// FileName is the index's file in the state folder (with its WAL
// companions FileName-wal and FileName-shm).
const FileName = "parked.db"

// Index is the index of the parked calls of one state folder.
type Index struct {
	dir  string
	db   *sql.DB
	opts Options
	// lastRead is how many bytes of the logs the last CatchUp read.
	lastRead int64
}

// Options are what an index tells its user.
type Options struct {
	// Warn hears, once, what went wrong with the index file that the
	// index mended (a corrupt file set aside). Nil: not said.
	Warn func(msg string)
	// Progress hears how far a catch-up that reads many bytes (a rebuild)
	// has come: bytes read of total. Nil: not said.
	Progress func(done, total int64)
}

// Open opens the index of the state folder dir, creating it (0600) when
// missing, and building its tables again when they are of another
// version. A file that is not a database, or a corrupt one, is renamed
// FileName+".corrupt" (said once through Warn) and a new index made.
func Open(dir string, o Options) (*Index, error) {
	x, err := open(dir, o)
	if err == nil || !Corrupt(err) {
		return x, err
	}
	if err := setAside(dir, o); err != nil {
		return nil, err
	}
	return open(dir, o)
}

// open opens the database and checks its schema.
func open(dir string, o Options) (*Index, error) {
	path := filepath.Join(dir, FileName)
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("the state folder's path %q has a ? or #, which SQLite's file names cannot hold", dir)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	_ = f.Close() // only made sure of: created with its mode
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, err
		}
	}
	for wait, start := time.Millisecond, time.Now(); ; wait = min(2*wait, 100*time.Millisecond) {
		db, err := sql.Open("sqlite", "file:"+path+
			"?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // one connection: its pragmas hold for every statement
		x := &Index{dir: dir, db: db, opts: o}
		err = x.checkSchema()
		if err == nil {
			return x, nil
		}
		_ = db.Close()
		if !busy(err) || time.Since(start) > busyWait {
			return nil, err
		}
		time.Sleep(wait)
	}
}

// busyWait is how long open tries again while SQLite says the file is
// busy, as long as the busy_timeout of every statement.
const busyWait = 20 * time.Second

// busy says whether err is SQLite's SQLITE_BUSY. A connection's first
// contact can be told so without its busy handler being asked: turning a
// new file to WAL while another process makes it (a read that becomes a
// write), or opening while the last connection of another process tidies
// the WAL away on close. open tries again rather than fail.
func busy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 5 // SQLITE_BUSY
}

// checkSchema makes the tables, or makes them again when the index is of
// another version.
func (x *Index) checkSchema() error {
	var v int
	if err := x.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v == schemaVersion {
		return nil
	}
	tx, err := x.db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // after Commit, nothing to undo
	if err := tx.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v == schemaVersion {
		return err // another process made it meanwhile
	}
	if migrated, err := migrate(tx, v); err != nil || migrated {
		if err == nil {
			err = tx.Commit()
		}
		return err
	}
	for _, t := range []string{"logs", "calls", "why", "meta"} {
		if _, err := tx.Exec("DROP TABLE IF EXISTS " + t); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(schema); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// migrate brings an index of version v to schemaVersion by the steps of
// migrations, in the transaction tx (immediate: a second process that
// opens the same old index waits for it, then finds it migrated), and
// says whether it did; false, with nothing done, when there is no way
// from v.
func migrate(tx *sql.Tx, v int) (bool, error) {
	if v > schemaVersion {
		return false, nil // of a newer latch: built again, as before
	}
	var steps []string
	for at := v; at < schemaVersion; at++ {
		step, ok := migrations[at]
		if !ok {
			return false, nil
		}
		steps = append(steps, step)
	}
	for _, step := range steps {
		if _, err := tx.Exec(step); err != nil {
			return false, err
		}
	}
	_, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", schemaVersion))
	return err == nil, err
}

// Close closes the index.
func (x *Index) Close() error { return x.db.Close() }

// Corrupt says whether err is SQLite's word that the file is not a
// database, or a damaged one.
func Corrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
		return true
	}
	return false
}

// setAside renames a corrupt index out of the way, with its WAL files
// removed, and says so once.
func setAside(dir string, o Options) error {
	path := filepath.Join(dir, FileName)
	if err := os.Rename(path, path+".corrupt"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the index of parked calls %s is corrupt and could not be set aside: %v; remove it (it is rebuilt from the session logs)", path, err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		_ = os.Remove(path + ext) // of the corrupt file; a missing one is fine
	}
	if o.Warn != nil {
		o.Warn("the index of parked calls " + path + " was corrupt: set aside as " + FileName + ".corrupt, and built again from the session logs")
	}
	return nil
}

// Ready opens the index of dir and catches it up (CatchUp). An index
// found corrupt on the way is set aside (said once through Warn) and
// built again from the logs.
func Ready(dir string, o Options) (*Index, error) {
	x, err := Open(dir, o)
	if err != nil {
		return nil, err
	}
	if err = x.CatchUp(); err == nil {
		return x, nil
	}
	_ = x.Close() // given up on: nothing was written
	if !Corrupt(err) {
		return nil, err
	}
	if err := setAside(dir, o); err != nil {
		return nil, err
	}
	if x, err = open(dir, o); err != nil {
		return nil, err
	}
	if err := x.CatchUp(); err != nil {
		_ = x.Close() // given up on
		return nil, err
	}
	return x, nil
}
