// Package eventlog is the session log's format and files: the header
// every event shares, an event's wire form (one line of JSON with every
// control character escaped), the append-only log file (its torn lines
// and NUL tails, writes cut back when they fail, synced when asked), the
// reader that takes a log back line by line, the lock that makes one
// process a session's only writer, file locks, and atomic replacement of
// a file. It knows no event type but the Header: the session (package
// session) names its events and says which are written and synced. It
// imports only the standard library and golang.org/x/sys (the locks);
// never latch/session, which imports it.
package eventlog

import "time"

// Event is one thing that happened in a session. The concrete types, in
// package session, are the only implementations; switch on them.
type Event interface {
	Head() *Header
}

// Header is the part every event shares.
type Header struct {
	Type      string    `json:"type"`
	Time      time.Time `json:"time"`
	SessionID string    `json:"session_id"`
}

// Head returns the header, so that every event type satisfies Event.
func (h *Header) Head() *Header { return h }
