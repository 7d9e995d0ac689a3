package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// HistoryMax is the most entries the input history file keeps; the
// oldest go first.
const HistoryMax = 1000

// historySlack is how many entries past HistoryMax the file may hold
// before it is rewritten: not at every entry (only the newest HistoryMax
// are read).
const historySlack = HistoryMax / 4

// historyEntryMax is the longest entry written to the file (a long paste
// is recalled in the session that sent it, but not kept).
const historyEntryMax = 64 << 10

// HistoryFile is the input history's file: $XDG_STATE_HOME/latch/history
// (next to the sessions folder), or ~/.local/state/latch/history.
func HistoryFile(getenv func(string) string) string {
	return filepath.Join(filepath.Dir(StateDir(getenv)), "history")
}

// inputHistory is the input history: the messages and slash commands typed,
// of this session and of earlier ones. The file (0600, in a 0700 folder)
// holds one JSON object a line and is only appended to, under a lock
// (<file>.lock) that every latch takes for each write, so two latch
// processes at once lose none of each other's entries; past HistoryMax
// entries it is rewritten whole (a temporary file renamed over it) with
// the newest. A line that does not parse (cut short by a crash) is
// skipped.
type inputHistory struct {
	path string // "" keeps the history in memory only

	mu      sync.Mutex
	entries []string // oldest first
}

// historyLine is one line of the history file.
type historyLine struct {
	Text string `json:"text"`
}

// openHistory reads the history file at path (none yet: empty).
func openHistory(path string) *inputHistory {
	h := &inputHistory{path: path}
	if path != "" {
		data, _ := os.ReadFile(path)
		h.entries = parseHistory(data)
		h.entries = h.entries[max(len(h.entries)-HistoryMax, 0):]
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

// all returns a copy of the entries, oldest first.
func (h *inputHistory) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.entries...)
}

// add keeps text as the newest entry, unless it is the newest already;
// it reports why the file could not be written, if it could not.
func (h *inputHistory) add(text string) error {
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
// there already; past HistoryMax entries the file is rewritten with the
// newest.
func appendHistory(path, text string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	_ = os.Chmod(dir, 0o700)
	release, err := LockPath(path + ".lock")
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
	if bytes.Count(data, []byte("\n"))+1 > HistoryMax+historySlack {
		on := parseHistory(data)
		return rewriteHistory(path, append(on[max(len(on)+1-HistoryMax, 0):], text))
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
	return WriteFileAtomic(path, b.Bytes(), 0o600)
}

// InputHistory is the input history, oldest first: the messages and
// slash commands typed, of this session and of earlier ones (see
// Options.HistoryFile).
func (s *Session) InputHistory() []string { return s.hist.all() }

// Remember adds a message or slash command the person sent to the input
// history, with every credential the servers' manager knows redacted, as
// the session log has it; a /token line is never kept. It reports why
// the history file could not be written, if it could not (the entry is
// still recalled in this session).
func (s *Session) Remember(text string) error {
	if s.servers != nil {
		text = s.servers.Redact(text)
	}
	return s.hist.add(text)
}
