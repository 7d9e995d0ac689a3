package eventlog

import (
	"encoding/json"
	"os"
	"testing"
)

// headers read every line of a test's log as a bare Header.
var headers = map[string]func() Event{"notice": func() Event { return &Header{} }}

// decodeJSON decodes a line as encoding/json does.
func decodeJSON(line []byte, e Event) error { return json.Unmarshal(line, e) }

// TestLogShortWriteCutBack: whatever a failed write left (half a line, as
// a disk that filled in mid-line leaves) is cut back, so the next line
// does not glue onto it.
func TestLogShortWriteCutBack(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenLog(dir, "20261201-000000-short0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Write(&Header{Type: "notice"}, true); err != nil {
		t.Fatal(err)
	}
	// Half a line reaches the file, then the write fails.
	good := l.f
	half := []byte(`{"type":"notice","text":"tw`)
	if _, err := good.Write(half); err != nil {
		t.Fatal(err)
	}
	ro, err := os.Open(l.path) // read-only: the next write fails
	if err != nil {
		t.Fatal(err)
	}
	l.f = ro
	if change, err := l.Write(&Header{Type: "notice"}, true); err == nil || change != LogBroke {
		t.Fatalf("write to a read-only file: %v %v", change, err)
	}
	ro.Close()
	l.f = good
	if change, err := l.Write(&Header{Type: "notice"}, true); err != nil || change != LogRecovered {
		t.Fatalf("write after recovery: %v %v", change, err)
	}
	evs, warns, err := LoadLog(l.path, headers, decodeJSON)
	if err != nil || len(warns) != 0 || len(evs) != 2 {
		t.Fatalf("LoadLog: %d events, %v, %v", len(evs), warns, err)
	}
}
