package history_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"latch/session/history"
)

// historySession is an input history kept in file, as a session opens it.
func historySession(t *testing.T, file string) *history.Input {
	t.Helper()
	return history.Open(file)
}

// TestHistoryFile: what one session remembers, the next one recalls,
// oldest first, consecutive duplicates once; the file is 0600 in a 0700
// folder; a /token line is never kept.
func TestHistoryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "latch")
	file := filepath.Join(dir, "history")
	s := historySession(t, file)
	for _, e := range []string{"first", "second\nwith a second line", "second\nwith a second line", "/token srv abc", "/token", "third"} {
		if err := s.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"first", "second\nwith a second line", "third"}
	if got := historySession(t, file).All(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("recalled %q, want %q", got, want)
	}
	for path, mode := range map[string]os.FileMode{file: 0o600, dir: 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != mode {
			t.Errorf("%s: %v %v, want %v", path, err, fi.Mode(), mode)
		}
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "token") {
		t.Errorf("a /token line was written:\n%s", data)
	}
}

// TestHistoryCap: the file keeps the newest Max entries, the
// oldest dropped.
func TestHistoryCap(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	s := historySession(t, file)
	n := history.Max + history.Max/2
	for i := range n {
		if err := s.Add(fmt.Sprintf("entry %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	got := historySession(t, file).All()
	if len(got) != history.Max || got[0] != fmt.Sprintf("entry %d", n-history.Max) || got[len(got)-1] != fmt.Sprintf("entry %d", n-1) {
		t.Fatalf("%d entries, from %q to %q", len(got), got[0], got[len(got)-1])
	}
	data, _ := os.ReadFile(file)
	if lines := strings.Count(string(data), "\n"); lines > history.Max+history.Max/4 {
		t.Fatalf("the file holds %d lines", lines)
	}
}

// TestHistoryTwoWriters: two latch at once, each writing its entries
// (past the cap's rewrite too): neither loses the other's, and every line
// of the file parses.
func TestHistoryTwoWriters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	a, b := historySession(t, file), historySession(t, file)
	const each = 700 // two of them: past Max + a quarter, so the file is rewritten meanwhile
	var wg sync.WaitGroup
	for name, s := range map[string]*history.Input{"a": a, "b": b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := s.Add(fmt.Sprintf("%s %d", name, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got := historySession(t, file).All()
	if len(got) < history.Max-1 {
		t.Fatalf("%d entries after two writers", len(got))
	}
	seen := map[string]bool{}
	for _, e := range got {
		seen[e] = true
	}
	// The newest of each are kept whatever the order of the writes.
	for _, e := range []string{fmt.Sprintf("a %d", each-1), fmt.Sprintf("b %d", each-1), fmt.Sprintf("a %d", each-100), fmt.Sprintf("b %d", each-100)} {
		if !seen[e] {
			t.Errorf("%q is lost", e)
		}
	}
	data, _ := os.ReadFile(file)
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.HasPrefix(l, `{"text":"`) || !strings.HasSuffix(l, `"}`) {
			t.Fatalf("line %d is torn: %q", i+1, l)
		}
	}
}

// TestHistoryCorruptLine: a line that does not parse (cut short by a
// crash, or garbage) is skipped, and the next entry written after a cut
// line stays whole.
func TestHistoryCorruptLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	if err := os.WriteFile(file, []byte("{\"text\":\"before\"}\nnot json at all\n{\"text\":\"cut sho"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := historySession(t, file)
	if got := s.All(); fmt.Sprint(got) != fmt.Sprint([]string{"before"}) {
		t.Fatalf("recalled %q", got)
	}
	if err := s.Add("after"); err != nil {
		t.Fatal(err)
	}
	if got := historySession(t, file).All(); fmt.Sprint(got) != fmt.Sprint([]string{"before", "after"}) {
		t.Fatalf("recalled %q after a cut line", got)
	}
}
