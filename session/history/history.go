// Package history is the input history: the messages and slash commands
// a person typed, of this session and of earlier ones, in a file of one
// JSON object a line that every latch appends to under a lock and that is
// rewritten whole past Max entries. A /token line is never kept. The
// session (package session) hands it what was sent, credentials already
// redacted; this package imports nothing of latch but the event log's
// file helpers (latch/session/eventlog), never latch/session.
package history

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"latch/session/eventlog"
)

// Max is the most entries the input history file keeps; the oldest go
// first.
const Max = 1000

// historySlack is how many entries past Max the file may hold
// before it is rewritten: not at every entry (only the newest Max
// are read).
const historySlack = Max / 4

// historyEntryMax is the longest entry written to the file (a long paste
// is recalled in the session that sent it, but not kept).
const historyEntryMax = 64 << 10

// Input is the input history: the messages and slash commands typed,
// of this session and of earlier ones. The file (0600, in a 0700 folder)
// holds one JSON object a line and is only appended to, under a lock
// (<file>.lock) that every latch takes for each write, so two latch
// processes at once lose none of each other's entries; past Max
// entries it is rewritten whole (a temporary file renamed over it) with
// the newest. A line that does not parse (cut short by a crash) is
// skipped.
type Input struct {
	path string // "" keeps the history in memory only

	mu      sync.Mutex
	entries []string // oldest first
}

// historyLine is one line of the history file.
type historyLine struct {
	Text string `json:"text"`
}

// Open reads the history file at path (none yet: empty).
func Open(path string) *Input {
	h := &Input{path: path}
	if path != "" {
		data, _ := os.ReadFile(path)
		h.entries = parseHistory(data)
		h.entries = h.entries[max(len(h.entries)-Max, 0):]
	}
	return h
}

// parseHistory reads the entries of a history file, oldest first,
// skipping lines that do not parse and folding consecutive duplicates.
func parseHistory(data []byte) []string {
	var out []string
	for _, line := range bytes.Split(data, []byte("\n")) {
		var l historyLine
		if len(line) == 0 || json.Unmarshal(line, &l) != nil || l.Text == "" {
			continue
		}
		if len(out) > 0 && out[len(out)-1] == l.Text {
			continue
		}
		out = append(out, l.Text)
	}
	return out
}

// neverKept reports whether text must not be written to the history: a
// /token line (whatever follows it, a token typed there by mistake too).
func neverKept(text string) bool {
	t := strings.TrimSpace(text)
	return t == "/token" || strings.HasPrefix(t, "/token ") || strings.HasPrefix(t, "/token\t") ||
		strings.HasPrefix(t, "/token\n")
}

// All returns a copy of the entries, oldest first.
func (h *Input) All() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.entries...)
}

// Add keeps text as the newest entry, unless it is the newest already;
// it reports why the file could not be written, if it could not.
func (h *Input) Add(text string) error {
	if strings.TrimSpace(text) == "" || neverKept(text) {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.entries); n == 0 || h.entries[n-1] != text {
		h.entries = append(h.entries, text)
	}
	if h.path == "" || len(text) > historyEntryMax {
		return nil
	}
	return appendHistory(h.path, text)
}

// appendHistory adds text to the file at path, under its lock: after
// the entries other latch processes wrote since, unless it is the newest
// there already; past Max entries the file is rewritten with the
// newest.
func appendHistory(path, text string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	_ = os.Chmod(dir, 0o700)
	release, err := eventlog.LockPath(path + ".lock")
	if err != nil {
		return err
	}
	defer release()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if lastEntry(data) == text {
		return nil
	}
	line, err := json.Marshal(historyLine{Text: text})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if bytes.Count(data, []byte("\n"))+1 > Max+historySlack {
		on := parseHistory(data)
		return rewriteHistory(path, append(on[max(len(on)+1-Max, 0):], text))
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_ = f.Chmod(0o600)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// The last line was cut short: end it, so that this one stays
		// whole (the cut one is skipped when read).
		line = append([]byte{'\n'}, line...)
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// lastEntry is the newest entry of a history file's data ("" when its
// last whole line does not parse).
func lastEntry(data []byte) string {
	data = bytes.TrimRight(data, "\n")
	var l historyLine
	if json.Unmarshal(data[bytes.LastIndexByte(data, '\n')+1:], &l) != nil {
		return ""
	}
	return l.Text
}

// rewriteHistory replaces the file at path with entries, through a
// temporary file renamed over it: a crash leaves the old file or the new.
func rewriteHistory(path string, entries []string) error {
	var b bytes.Buffer
	for _, e := range entries {
		line, err := json.Marshal(historyLine{Text: e})
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return eventlog.WriteFileAtomic(path, b.Bytes(), 0o600)
}
