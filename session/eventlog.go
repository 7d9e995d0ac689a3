package session

import (
	"io/fs"

	"latch/session/eventlog"
)

// Event is one thing that happened in a session. The concrete types of
// this package are the only implementations; switch on them.
type Event = eventlog.Event

// Header is the part every event shares.
type Header = eventlog.Header

// ErrSessionBusy means another latch process holds the session.
var ErrSessionBusy = eventlog.ErrSessionBusy

// ErrCorruptLog is returned for a log line that cannot be read and is not
// the torn last line of a crash.
var ErrCorruptLog = eventlog.ErrCorruptLog

// Marshal encodes an event in its wire form: one line of JSON, as the
// session log and --json write it, every control character escaped
// (eventlog.Marshal).
func Marshal(e Event) ([]byte, error) { return eventlog.Marshal(e) }

// LoadLog reads a session log. A torn last line (a crash in mid-write) is
// skipped with a warning, and so is a tail of NUL bytes; any other
// unreadable line is an error naming its line number. Unknown event types
// are skipped (a newer latch wrote them).
func LoadLog(path string) (events []Event, warnings []string, err error) {
	return eventlog.LoadLog(path, decoders, decodeEvent)
}

// LockPath takes the OS lock on the file at path (made 0600 if need be),
// waiting for another process that holds it, and returns its release.
func LockPath(path string) (release func(), err error) { return eventlog.LockPath(path) }

// WriteFileAtomic replaces path with data through a temporary file
// renamed over it: a crash leaves the old file or the new one
// (eventlog.WriteFileAtomic).
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) error {
	return eventlog.WriteFileAtomic(path, data, mode)
}
