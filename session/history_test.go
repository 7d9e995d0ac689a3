package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// historySession is a session keeping its input history in file.
func historySession(t *testing.T, file string) *session.Session {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	s := session.New(session.Options{Client: ol.Client(), Model: "qwen3:8b", HistoryFile: file})
	t.Cleanup(s.Close)
	return s
}

// TestHistoryFile: what one session remembers, the next one recalls,
// oldest first, consecutive duplicates once; the file is 0600 in a 0700
// folder; a /token line is never kept.
func TestHistoryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "latch")
	file := filepath.Join(dir, "history")
	s := historySession(t, file)
	for _, e := range []string{"first", "second\nwith a second line", "second\nwith a second line", "/token srv abc", "/token", "third"} {
		if err := s.Remember(e); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"first", "second\nwith a second line", "third"}
	if got := historySession(t, file).InputHistory(); fmt.Sprint(got) != fmt.Sprint(want) {
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

// TestHistoryCap: the file keeps the newest HistoryMax entries, the
// oldest dropped.
func TestHistoryCap(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	s := historySession(t, file)
	n := session.HistoryMax + session.HistoryMax/2
	for i := range n {
		if err := s.Remember(fmt.Sprintf("entry %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	got := historySession(t, file).InputHistory()
	if len(got) != session.HistoryMax || got[0] != fmt.Sprintf("entry %d", n-session.HistoryMax) || got[len(got)-1] != fmt.Sprintf("entry %d", n-1) {
		t.Fatalf("%d entries, from %q to %q", len(got), got[0], got[len(got)-1])
	}
	data, _ := os.ReadFile(file)
	if lines := strings.Count(string(data), "\n"); lines > session.HistoryMax+session.HistoryMax/4 {
		t.Fatalf("the file holds %d lines", lines)
	}
}

// TestHistoryTwoWriters: two latch at once, each writing its entries
// (past the cap's rewrite too): neither loses the other's, and every line
// of the file parses.
func TestHistoryTwoWriters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	a, b := historySession(t, file), historySession(t, file)
	const each = 700 // two of them: past HistoryMax + a quarter, so the file is rewritten meanwhile
	var wg sync.WaitGroup
	for name, s := range map[string]*session.Session{"a": a, "b": b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := s.Remember(fmt.Sprintf("%s %d", name, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got := historySession(t, file).InputHistory()
	if len(got) < session.HistoryMax-1 {
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
	if got := s.InputHistory(); fmt.Sprint(got) != fmt.Sprint([]string{"before"}) {
		t.Fatalf("recalled %q", got)
	}
	if err := s.Remember("after"); err != nil {
		t.Fatal(err)
	}
	if got := historySession(t, file).InputHistory(); fmt.Sprint(got) != fmt.Sprint([]string{"before", "after"}) {
		t.Fatalf("recalled %q after a cut line", got)
	}
}

// TestHistoryRedactsCredentials: a message holding a password the person
// typed into a server's form is written to the history with it hidden,
// as the session log has it.
func TestHistoryRedactsCredentials(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	ol := newServer(t, toolsModel)
	cfg := deskServer("", "https://example.com")
	s := newSession(t, ol, session.Options{Model: toolsModel.Name, LogDir: t.TempDir(), HistoryFile: file,
		Servers: []session.ServerConfig{cfg}, Policy: permissions.Policy{Mode: permissions.Auto}})
	h := &elicitHarness{t: t, s: s, ol: ol, r: newReader(t, s)}
	s.StartServers()
	s.WaitServers(bounded(t))
	mcptestutil.WaitFor(t, timeout, "desk connected", func() bool {
		st := s.Servers()
		return len(st) == 1 && st[0].State == session.StateConnected
	})
	ev := h.request(h.call("desk__fill_form"))
	content := mcp.FormDefaults(ev.Fields)
	content["name"], content["email"], content["pin"] = "Ada", "ada@example.com", "s3cr3t-pin-4711"
	if err := s.AnswerElicitation(ev.ID, session.ElicitAccept, content); err != nil {
		t.Fatal(err)
	}
	h.result()
	if err := s.Remember("my pin is s3cr3t-pin-4711, remember it"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), "s3cr3t-pin-4711") || !strings.Contains(string(data), "my pin is") {
		t.Fatalf("the history file:\n%s", data)
	}
}
