package parkindex

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Find asks by an invocation id or an approval id; with 10,000 calls a
// scan of the whole table was what latch approve waited on. Its plan
// reads both ids through indexes.
func TestFindUsesAnIndex(t *testing.T) {
	x := ready(t, t.TempDir(), Options{})
	rows, err := x.db.Query("EXPLAIN QUERY PLAN "+findQuery, "gw_1", "ap_1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	got := strings.Join(plan, "\n")
	if strings.Contains(got, "SCAN calls") || !strings.Contains(got, "calls_approval_id") || !strings.Contains(got, "calls_call") {
		t.Errorf("Find's plan reads the whole table, or not through calls_call and calls_approval_id:\n%s", got)
	}
}

// asVersion makes the index file of dir look as an older latch left it:
// the schema of version v (2: without calls_approval_id), rows kept.
func asVersion(t *testing.T, dir string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	for _, q := range []string{"DROP INDEX IF EXISTS calls_approval_id", fmt.Sprintf("PRAGMA user_version = %d", v)} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// hasApprovalIndex says whether the index file has calls_approval_id.
func hasApprovalIndex(t *testing.T, x *Index) bool {
	t.Helper()
	var n int
	if err := x.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'calls_approval_id'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// An index left by the previous version (2) is migrated in place, its
// rows kept (the logs are not read again), by four openers at once that
// all succeed; after, it finds calls by their approval ids and keeps up
// with the log.
func TestIndexOfTheVersionBeforeIsMigrated(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	for i := range 3 {
		g.park("ci", map[string]any{"text": fmt.Sprintf("note %d", i)})
	}
	x := ready(t, dir, Options{})
	_ = x.Close()
	asVersion(t, dir, 2)

	var wg sync.WaitGroup
	errs := make([]error, 4)
	read := make([]int64, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, err := Ready(dir, Options{})
			if err == nil {
				read[i] = x.lastRead
				err = x.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil || read[i] != 0 {
			t.Errorf("opener %d: %v; read %d bytes of the logs (want 0: the rows kept)", i, err, read[i])
		}
	}
	x = ready(t, dir, Options{})
	var v int
	if err := x.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != schemaVersion || !hasApprovalIndex(t, x) {
		t.Fatalf("after opening: version %d (%v), calls_approval_id %v; want %d and the index", v, err, hasApprovalIndex(t, x), schemaVersion)
	}
	g.park("ci", map[string]any{"text": "after the migration"})
	agrees(t, x, dir, g.sess.ID())
	for _, p := range logged(t, dir, g.sess.ID()) {
		got, err := x.Find(p.ApprovalID)
		if err != nil || len(got) != 1 || got[0].CallID != p.CallID {
			t.Errorf("Find(%s) by its approval id = %v, %v; want %s", p.ApprovalID, got, err, p.CallID)
		}
	}
}

// An index of a version with no migration to this one is built again
// from the logs, and works.
func TestIndexOfAnOlderVersionIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	g.park("ci", map[string]any{"text": "a"})
	x := ready(t, dir, Options{})
	_ = x.Close()
	asVersion(t, dir, 1)
	x = ready(t, dir, Options{})
	if x.lastRead == 0 || !hasApprovalIndex(t, x) {
		t.Errorf("an index of version 1: read %d bytes of the logs, calls_approval_id %v; want it built again", x.lastRead, hasApprovalIndex(t, x))
	}
	agrees(t, x, dir, g.sess.ID())
}
