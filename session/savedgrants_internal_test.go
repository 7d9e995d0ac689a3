package session

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestSavedGrantsTwoWritersLoseNothing: two stores on one file (as two
// latch processes are) save 40 grants at once; every one is in the file.
func TestSavedGrantsTwoWritersLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latch", "grants.json")
	a, b := openGrantStore(path), openGrantStore(path)
	var wg sync.WaitGroup
	for i := range 40 {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := savedEntry{Server: "fs", Tool: fmt.Sprintf("tool%02d", i), Digest: "d"}
			if err := st.update(func(es []savedEntry) []savedEntry { return upsert(es, e) }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	entries, _, err := readGrants(path)
	if err != nil || len(entries) != 40 {
		t.Fatalf("%d grants in the file (%v), want 40", len(entries), err)
	}
}
