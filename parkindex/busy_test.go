package parkindex

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A fresh index is turned to WAL by the first process that opens it. Two
// that open it at once (two latch approve on a new state folder) race:
// the second is told SQLITE_BUSY at once, without its busy handler, while
// the first holds the file. Open waits for it instead of failing.
func TestOpenWaitsForAnotherProcessMakingTheIndex(t *testing.T) {
	dir := t.TempDir()
	other, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("CREATE TABLE other (x)"); err != nil {
		t.Fatal(err)
	}
	opened := make(chan error, 1)
	go func() {
		x, err := Open(dir, Options{})
		if err == nil {
			_ = x.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		t.Fatalf("Open returned while another held the file: %v", err)
	case <-time.After(300 * time.Millisecond): // not a measure: Open must still be waiting
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Errorf("Open once the other let go: %v", err)
	}
}
