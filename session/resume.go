package session

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ollama/ollama/api"

	"latch/permissions"
)

// InDoubt is a tool call that had started when latch stopped, with no
// recorded result: it may or may not have run. It is never re-run on its
// own; the user retries it (through the gate again) or dismisses it.
type InDoubt struct {
	CallID    string
	Server    string
	Tool      string
	Arguments map[string]any
	Turn      int
}

// Resumed is what a resumed session brought back.
type Resumed struct {
	Events   []Event // the logged events, for the screen to show the history
	Warnings []string
	InDoubt  []InDoubt
	Pending  []permissions.Approval
}

// Resume reopens session id from its log in dir: the conversation, the
// parked approvals and the calls in doubt. New events are appended to the
// same log. o.Model, when set, overrides the logged model.
func Resume(o Options, dir, id string) (*Session, *Resumed, error) {
	if !ValidID(id) {
		return nil, nil, fmt.Errorf("resume: %w", errBadID)
	}
	// The lock comes first: what is read must be what this process alone
	// writes to from now on.
	lock, err := lockSession(dir, id)
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(dir, id+".jsonl")
	events, warns, err := LoadLog(path)
	if err != nil {
		lock.release()
		return nil, nil, fmt.Errorf("resume %s: %w", id, err)
	}
	res := &Resumed{Events: events, Warnings: warns}

	var (
		history  []api.Message
		model    string
		turn     int
		calls    = map[string]*ToolCallEvent{}
		started  = map[string]bool{}
		answered = map[string]bool{}
		results  = map[string]*ToolResultEvent{}
		messaged = map[string]bool{}
		decided  = map[string]bool{}
		parked   = map[string]ApprovalParkedEvent{}
		order    []string
		resolved []string
		last     *SettingsEvent
		defs     = map[string]parkedDef{}
	)
	for _, e := range events {
		switch e := e.(type) {
		case *SessionStarted:
			if model == "" {
				model = e.Model
			}
		case *ModelChanged:
			model = e.Model
		case *UserMessage:
			turn = max(turn, e.Turn)
		case *MessageEvent:
			history = append(history, e.message())
			if e.Role == "tool" && e.ToolCallID != "" {
				answered[e.ToolCallID] = true
				messaged[e.ToolCallID] = true
			}
			turn = max(turn, e.Turn)
		case *ToolCallEvent:
			calls[e.CallID] = e
		case *PermissionEvent:
			switch {
			case e.Decision == "allowed":
				started[e.CallID] = true
			case e.Decision == "denied" && e.By == "user":
				decided[e.CallID] = false
			}
		case *SettingsEvent:
			last = e
		case *ApprovalParkedEvent:
			parked[e.ApprovalID] = *e
			defs[e.CallID] = parkedDef{digest: e.Digest, description: e.Description}
			order = append(order, e.ApprovalID)
		case *ApprovalResolvedEvent:
			if ap, ok := parked[e.ApprovalID]; ok {
				decided[ap.CallID] = e.Decision == "approved"
				delete(parked, e.ApprovalID)
			}
			resolved = append(resolved, e.ApprovalID)
		case *ToolResultEvent:
			answered[e.CallID] = true
			results[e.CallID] = e
		}
	}
	if o.Model == "" {
		o.Model = model
	}
	notices := restoreSettings(&o, last)
	o.ID, o.LogDir, o.lock = id, dir, lock
	s := New(o)
	s.resumeNotices = notices
	if last != nil {
		for name, digest := range last.Grants {
			s.gate.Grant(name, digest)
			s.set.grants[name] = digest
		}
	}
	s.parkedDefs = defs
	s.history = history
	s.turn = turn
	s.decided = decided
	s.resumed = true

	var pend []permissions.Approval
	for _, id := range order {
		if ap, ok := parked[id]; ok && !answered[ap.CallID] {
			pend = append(pend, permissions.Approval{ID: id, CallID: ap.CallID, Server: ap.Server, Tool: ap.Tool,
				Name: ap.Tool, Arguments: ap.Arguments, Turn: ap.Turn, Created: ap.Time})
		}
	}
	s.approvals.RestoreResolved(resolved)
	s.approvals.Restore(pend)
	res.Pending = pend

	// The unanswered calls of the last reply are what the turn still owes.
	if n := len(history); n > 0 {
		for i := n - 1; i >= 0; i-- {
			m := history[i]
			if m.Role == "tool" {
				continue
			}
			if m.Role == "assistant" {
				for _, c := range m.ToolCalls {
					switch r := results[c.ID]; {
					case !answered[c.ID]:
						s.owed = append(s.owed, c)
					case r != nil && !messaged[c.ID]:
						// The result was logged but latch stopped before the
						// model's copy was: give the model what the log has.
						content := r.Content
						if content == "" { // a log from before results were kept whole
							content = r.Preview
						}
						if r.Error != "" {
							content = errorJSON(r.Error)
						}
						s.history = append(s.history, api.Message{Role: "tool", ToolName: c.Function.Name,
							ToolCallID: c.ID, Content: content})
						s.goOn = true // the model owes a reply to it
					}
				}
			}
			break
		}
	}
	for _, c := range s.owed {
		if started[c.ID] {
			ev := calls[c.ID]
			d := InDoubt{CallID: c.ID, Tool: c.Function.Name, Arguments: c.Function.Arguments.ToMap(), Turn: turn}
			if ev != nil {
				d.Server = ev.Server
			}
			s.inDoubt = append(s.inDoubt, d)
		}
	}
	res.InDoubt = append([]InDoubt(nil), s.inDoubt...)
	return s, res, nil
}

// InDoubtCalls lists the calls whose outcome is unknown.
func (s *Session) InDoubtCalls() []InDoubt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]InDoubt(nil), s.inDoubt...)
}

// Retry lets a call in doubt run again — through the gate, like any call —
// and continues the turn.
func (s *Session) Retry(callID string) error {
	if err := s.dropInDoubt(callID); err != nil {
		return err
	}
	s.Continue()
	return nil
}

// Dismiss tells the model a call in doubt has an unknown outcome, without
// running it again, and continues the turn.
func (s *Session) Dismiss(callID string) error {
	if err := s.dropInDoubt(callID); err != nil {
		return err
	}
	s.mu.Lock()
	s.dismissed[callID] = true
	s.mu.Unlock()
	s.Continue()
	return nil
}

func (s *Session) dropInDoubt(callID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, d := range s.inDoubt {
		if d.CallID == callID {
			s.inDoubt = append(s.inDoubt[:i], s.inDoubt[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("no call in doubt with id %q", callID)
}

// Blocked says why the owed calls of a resumed turn cannot go on yet, or
// "" when they can (or there are none).
func (s *Session) Blocked() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.inDoubt) > 0 {
		d := s.inDoubt[0]
		return fmt.Sprintf("call %s (%s) was running when latch stopped; its outcome is unknown: /retry %s runs it again through the gate, /dismiss %s tells the model", d.CallID, d.Tool, d.CallID, d.CallID)
	}
	for _, c := range s.owed {
		if _, ok := s.decided[c.ID]; ok {
			continue
		}
		for _, ap := range s.approvals.Pending() {
			if ap.CallID == c.ID {
				return fmt.Sprintf("call %s (%s) waits for approval: /approve %s or /reject %s", c.ID, ap.Name, ap.ID, ap.ID)
			}
		}
	}
	return ""
}

// Continue resumes a turn that owes tool calls, once nothing blocks it:
// decided calls run (or are denied) exactly as decided, the rest go through
// the gate, and the model is asked again. A turn whose results were all
// logged, but not yet seen by the model, goes on with the model. It
// reports whether a turn started.
func (s *Session) Continue() bool {
	if s.Blocked() != "" {
		return false
	}
	s.mu.Lock()
	if s.cancel != nil || (len(s.owed) == 0 && !s.goOn) {
		s.mu.Unlock()
		return false
	}
	owed := s.owed
	s.owed = nil
	s.goOn = false
	turn := s.turn
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.done = make(chan struct{})
	done := s.done
	s.mu.Unlock()
	go s.runTurn(ctx, turn, done, owed)
	return true
}

// WaitServers waits until no server is still connecting (or ctx ends),
// and the server_status of each one's latest state is published. A server
// that StartServers started but whose connect has not begun yet (still
// closed since before the start) counts as connecting.
func (s *Session) WaitServers(ctx context.Context) {
	if s.servers == nil {
		return
	}
	s.mu.Lock()
	started := s.serversStarted
	s.mu.Unlock()
	for {
		busy := false
		statuses := s.servers.Statuses()
		s.mu.Lock()
		for _, st := range statuses {
			shown, ok := s.statusShown[st.Name]
			switch {
			case st.State == StateConnecting || (st.State == StateClosed && !started.IsZero() && !st.Since.After(started)):
				busy = true
			case ok && !shown.Equal(st.Since), !ok && st.State != StateDisabled && st.State != StateClosed:
				// The server's latest state is not published yet: wait
				// for it, so that its server_status comes before
				// whatever the caller publishes next.
				busy = true
			}
		}
		s.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
