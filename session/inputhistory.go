package session

import (
	"path/filepath"

	"latch/session/history"
)

// HistoryMax is the most entries the input history file keeps; the
// oldest go first.
const HistoryMax = history.Max

// HistoryFile is the input history's file: $XDG_STATE_HOME/latch/history
// (next to the sessions folder), or ~/.local/state/latch/history.
func HistoryFile(getenv func(string) string) string {
	return filepath.Join(filepath.Dir(StateDir(getenv)), "history")
}

// InputHistory is the input history, oldest first: the messages and
// slash commands typed, of this session and of earlier ones (see
// Options.HistoryFile).
func (s *Session) InputHistory() []string { return s.hist.All() }

// Remember adds a message or slash command the person sent to the input
// history, with every credential the servers' manager knows redacted, as
// the session log has it; a /token line is never kept. It reports why
// the history file could not be written, if it could not (the entry is
// still recalled in this session).
func (s *Session) Remember(text string) error {
	if s.servers != nil {
		text = s.servers.Redact(text)
	}
	return s.hist.Add(text)
}
