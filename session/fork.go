package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ollama/ollama/api"

	"latch/permissions"
)

// ForkPoint is where a forked session branched off: its parent and the
// parent's last event then. It rides on the fork's session_started.
type ForkPoint struct {
	Parent string    `json:"parent"` // the parent session's id
	Turn   int       `json:"turn"`   // the parent's last turn
	Events int       `json:"events"` // how many events the parent's log held
	At     time.Time `json:"at"`     // the time of the parent's last event
}

// Fork starts a new session from session parent's log in dir (/fork,
// --fork ID) and opens it as Resume opens a session. The fork's log is
// written whole before it is opened: a session_started naming the parent
// (ForkPoint), the parent's events since its last /clear (the conversation
// as the model sees it, and as the screen shows it), and its own settings.
//
// A fork never holds more than its parent did, nor anything the parent
// still waits on: the calls the parent has not answered (parked, approved
// but not run, in doubt) are left out with every event of theirs, and the
// model is told each was not run (one in doubt: that its outcome is
// unknown, and it is not run again); session grants and the parent's --allow
// are not carried; the mode (and each server's) is the narrower of the
// parent's and the one the fork is started with (o.Policy, --mode
// included: on a fork it narrows, never widens). The parent's
// log is only read, without its lock: it stays as it was, resumable.
func Fork(o Options, dir, parent string) (*Session, *Resumed, error) {
	if err := Exists(dir, parent); err != nil {
		return nil, nil, err
	}
	events, warns, err := LoadLog(filepath.Join(dir, parent+".jsonl"))
	if err != nil {
		return nil, nil, fmt.Errorf("fork %s: %w", parent, err)
	}
	st := replay(events)
	if st.gateway {
		return nil, nil, gatewayRunError{parent}
	}
	id := NewID()
	out, left := forkEvents(id, parent, events, st, o)
	var buf bytes.Buffer
	for _, e := range out {
		b, err := Marshal(e)
		if err != nil {
			return nil, nil, fmt.Errorf("fork %s: %w", parent, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := WriteFileAtomic(path, buf.Bytes(), 0o600); err != nil {
		return nil, nil, fmt.Errorf("fork %s: %w", parent, err)
	}
	// The fork's settings are already the narrower; a --mode given now
	// narrows them (it is in o.Policy), and never widens them.
	narrowed := forkModeNotice(st.settings, out[len(out)-1].(*SettingsEvent), o.ModeFromFlag)
	o.ModeFromFlag = false
	s, r, err := Resume(o, dir, id)
	if err != nil {
		_ = os.Remove(path) // nothing was said in it yet
		return nil, nil, err
	}
	note := fmt.Sprintf("forked from session %s at turn %d (it stays as it was: latch --resume %s); session grants are not carried over", parent, st.turn, parent)
	if left > 0 {
		note += fmt.Sprintf("; %d call(s) it was still waiting on stay there, not here", left)
	}
	s.resumeNotices = append([]string{note}, s.resumeNotices...)
	if narrowed != "" {
		s.resumeNotices = append(s.resumeNotices, narrowed)
	}
	r.Warnings = append(warns, r.Warnings...)
	return s, r, nil
}

// forkEvents are the events of the fork's log, and how many of the
// parent's calls were left out.
func forkEvents(id, parent string, events []Event, st *logState, o Options) ([]Event, int) {
	head := func(typ string) Header { return Header{Type: typ, Time: time.Now().UTC(), SessionID: id} }
	point := &ForkPoint{Parent: parent, Turn: st.turn, Events: len(events)}
	if n := len(events); n > 0 {
		point.At = events[n-1].Head().Time
	}
	out := []Event{&SessionStarted{Header: head(TypeSessionStarted), Model: st.model, Host: o.Host, Fork: point}}
	left := st.unanswered()
	for _, e := range sinceCleared(events) {
		switch e.(type) {
		case *SessionStarted, *SettingsEvent:
			continue // the fork's own are written instead
		}
		if left[callIDOf(e)] {
			continue
		}
		e.Head().SessionID = id
		out = append(out, e)
	}
	if last, ok := st.lastReply(); ok {
		for _, c := range last.ToolCalls {
			var m api.Message
			switch r := st.results[c.ID]; {
			case left[c.ID] && st.started[c.ID] > 0:
				m = api.Message{Role: "tool", ToolName: c.Function.Name, ToolCallID: c.ID,
					Content: errorJSON("outcome unknown: the call had started in session " + parent + " when latch stopped, and this conversation was forked from it before its result; it is not run again here")}
			case left[c.ID]:
				m = api.Message{Role: "tool", ToolName: c.Function.Name, ToolCallID: c.ID,
					Content: errorJSON("not run: this conversation was forked from session " + parent + " before the call was decided or run")}
			case r != nil && !st.messaged[c.ID]:
				m = restoredResult(c, r)
			default:
				continue
			}
			out = append(out, &MessageEvent{Header: head(TypeMessage), Turn: st.turn, Role: m.Role, Content: m.Content,
				ToolName: m.ToolName, ToolCallID: m.ToolCallID})
		}
	}
	out = append(out, forkSettings(head(TypeSettings), st.settings, o.Policy))
	return out, len(left)
}

// unanswered are the ids of the calls without an answer: no result and no
// tool message. Parked calls, approved ones that had not run, and calls
// in doubt are among them; so are the last reply's calls never started.
func (st *logState) unanswered() map[string]bool {
	out := map[string]bool{}
	for id := range st.calls {
		if !st.answered[id] {
			out[id] = true
		}
	}
	for _, ap := range st.parked {
		if !st.answered[ap.CallID] {
			out[ap.CallID] = true
		}
	}
	if last, ok := st.lastReply(); ok {
		for _, c := range last.ToolCalls {
			if !st.answered[c.ID] {
				out[c.ID] = true
			}
		}
	}
	delete(out, "")
	return out
}

// sinceCleared are the events after the last /clear: the conversation
// the model sees starts there.
func sinceCleared(events []Event) []Event {
	for i := len(events) - 1; i >= 0; i-- {
		if _, ok := events[i].(*Cleared); ok {
			return events[i+1:]
		}
	}
	return events
}

// callIDOf is the id of the tool call an event is about, "" for others.
func callIDOf(e Event) string {
	switch e := e.(type) {
	case *ToolCallEvent:
		return e.CallID
	case *PermissionEvent:
		return e.CallID
	case *ApprovalParkedEvent:
		return e.CallID
	case *ApprovalResolvedEvent:
		return e.CallID
	case *ToolResultEvent:
		return e.CallID
	case *ToolProgress:
		return e.CallID
	case *ToolTaskEvent:
		return e.CallID
	}
	return ""
}

// forkSettings are the fork's permission settings: each mode the narrower
// of the parent's and now's; no grants, no --allow of the parent's.
func forkSettings(h Header, parent *SettingsEvent, now permissions.Policy) *SettingsEvent {
	ev := &SettingsEvent{Header: h, Mode: now.Mode.String()}
	if parent == nil {
		return ev
	}
	pm, err := permissions.ParseMode(parent.Mode)
	if err != nil {
		pm = permissions.ReadOnly
	}
	ev.Mode = min(pm, now.Mode).String()
	servers := map[string]bool{}
	for s := range parent.ServerModes {
		servers[s] = true
	}
	for s := range now.ServerModes {
		servers[s] = true
	}
	for s := range servers {
		p := pm
		if name, has := parent.ServerModes[s]; has {
			if p, err = permissions.ParseMode(name); err != nil {
				p = permissions.ReadOnly
			}
		}
		n := now.Mode
		if m, has := now.ServerModes[s]; has {
			n = m
		}
		if ev.ServerModes == nil {
			ev.ServerModes = map[string]string{}
		}
		ev.ServerModes[s] = min(p, n).String()
	}
	return ev
}
