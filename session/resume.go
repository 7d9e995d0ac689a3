package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ollama/ollama/api"

	"latch/permissions"
	"latch/session/eventlog"
)

// InDoubt is a tool call that had started when latch stopped, with no
// recorded result: it may or may not have run. The user retries it
// (through the gate again) or dismisses it; only a call of an idempotent
// server that started once runs again on its own (effects.go).
type InDoubt struct {
	CallID    string
	Server    string
	Tool      string
	Arguments map[string]any
	Turn      int
	// Starts is how many times the log says the call started: 1, or
	// more when it was already run again after a crash.
	Starts int
	// Held says why a call of an idempotent server was not run again on
	// its own after all ("" for any other): see SettleRetries.
	Held string
}

// Resumed is what a resumed session brought back.
type Resumed struct {
	Events   []Event // the logged events, for the screen to show the history
	Warnings []string
	InDoubt  []InDoubt
	Pending  []permissions.Approval
	// Retrying are the calls in doubt of idempotent servers that run
	// again on their own, once, when the turn goes on (effects.go).
	Retrying []InDoubt
}

// Resume reopens session id from its log in dir: the conversation, the
// parked approvals and the calls in doubt. New events are appended to the
// same log. o.Model, when set, overrides the logged model, unless
// o.ModelIsDefault (see restoreModel).
func Resume(o Options, dir, id string) (*Session, *Resumed, error) {
	if err := Exists(dir, id); err != nil {
		return nil, nil, err
	}
	// The lock comes first: what is read must be what this process alone
	// writes to from now on. (Exists, before it, only looks: a session
	// that is not there leaves no lock file behind.)
	lock, err := eventlog.LockSession(dir, id)
	if err != nil {
		return nil, nil, err
	}
	events, warns, err := LoadLog(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		lock.Release()
		return nil, nil, fmt.Errorf("resume %s: %w", id, err)
	}
	st := replay(events)
	if st.gateway {
		lock.Release()
		return nil, nil, gatewayRunError{id}
	}
	notices := restoreModel(&o, st.model)
	notices = append(notices, restoreSettings(&o, st.settings)...)
	notices = append(notices, restoreInstructions(&o, st.instructions)...)
	o.ID, o.LogDir, o.lock = id, dir, lock
	s := New(o)
	s.resumeNotices = notices
	s.restoreGrants(st.settings)
	s.parkedDefs, s.history, s.turn, s.decided = st.defs, st.history, st.turn, st.decided
	if st.view.upTo <= len(st.history) {
		s.cp.view = st.view // compacted before (compact.go)
	}
	s.resumed = true
	pending := s.restoreApprovals(st)
	s.restoreOwed(st)
	s.resumedTasks = st.liveTasks()
	retrying := s.takeRetries(st.inDoubt(s.owed))
	return s, &Resumed{Events: events, Warnings: warns, Pending: pending,
		InDoubt: append([]InDoubt(nil), s.inDoubt...), Retrying: retrying}, nil
}

// ErrNoSession means no session log has the id asked for.
var ErrNoSession = errors.New("no such session")

// Exists checks, creating nothing, that id is a session's id and that its
// log is in dir. The error says what to do: ErrNoSession, "no session ID;
// `latch sessions` lists them".
func Exists(dir, id string) error {
	if !ValidID(id) {
		return fmt.Errorf("resume: %w", errBadID)
	}
	if _, err := os.Stat(filepath.Join(dir, id+".jsonl")); errors.Is(err, fs.ErrNotExist) {
		return noSessionError{id}
	}
	return nil
}

// ErrGatewayRun means the session is a run of latch serve: its parked
// calls are the gateway's, decided with latch approvals and latch approve
// while it runs, so no chat resumes it.
var ErrGatewayRun = errors.New("a gateway run")

// Resumable checks, creating nothing, that session id can be resumed in
// the chat: its log is in dir (see Exists), and it is not a gateway's run
// (ErrGatewayRun).
func Resumable(dir, id string) error {
	if err := Exists(dir, id); err != nil {
		return err
	}
	if sum, err := summarize(filepath.Join(dir, id+".jsonl")); err == nil && sum.Gateway {
		return gatewayRunError{id}
	}
	return nil
}

// gatewayRunError is ErrGatewayRun for one id, saying what to do instead.
type gatewayRunError struct{ id string }

func (e gatewayRunError) Error() string {
	return e.id + " is a gateway run (latch serve); decide its calls with `latch approvals` / `latch approve ID`"
}

func (e gatewayRunError) Is(target error) bool { return target == ErrGatewayRun }

// noSessionError is ErrNoSession for one id, saying where to look.
type noSessionError struct{ id string }

func (e noSessionError) Error() string {
	return "no session " + e.id + "; `latch sessions` lists them"
}

func (e noSessionError) Is(target error) bool { return target == ErrNoSession }

// logState is what a session log says, read event by event (replay).
type logState struct {
	history      []api.Message
	model        string
	turn         int
	calls        map[string]*ToolCallEvent      // by call id
	started      map[string]int                 // how many times each call was allowed to run
	answered     map[string]bool                // calls with a tool message or a result
	messaged     map[string]bool                // calls whose tool message the model has
	results      map[string]*ToolResultEvent    // by call id
	decided      map[string]bool                // call id → a person approved (or allowed) it
	parked       map[string]ApprovalParkedEvent // approvals still pending, by id
	order        []string                       // approval ids as they were parked
	resolved     []string                       // approval ids resolved
	defs         map[string]parkedDef           // what each parked call was parked with, by call id
	settings     *SettingsEvent                 // the last
	instructions *InstructionsEvent             // the last
	gateway      bool                           // a run of latch serve
	view         compactView                    // the model's view of the history (compact.go)
	tasks        map[string]string              // call id → the task it started (calltask.go)
}

// replay reads the logged events into the state they leave.
func replay(events []Event) *logState {
	st := &logState{
		calls: map[string]*ToolCallEvent{}, started: map[string]int{}, answered: map[string]bool{},
		messaged: map[string]bool{}, results: map[string]*ToolResultEvent{}, decided: map[string]bool{},
		parked: map[string]ApprovalParkedEvent{}, defs: map[string]parkedDef{},
	}
	for _, e := range events {
		st.apply(e)
	}
	return st
}

// apply adds one logged event to the state.
func (st *logState) apply(e Event) {
	switch e := e.(type) {
	case *SessionStarted:
		if st.model == "" {
			st.model = e.Model
		}
		st.gateway = st.gateway || e.Gateway
	case *ModelChanged:
		st.model = e.Model
	case *UserMessage:
		st.turn = max(st.turn, e.Turn)
	case *MessageEvent:
		st.message(e)
	case *Cleared:
		st.history, st.view = nil, compactView{}
	case *CompactionEvent:
		st.view.replay(e, st.history)
	case *ToolCallEvent:
		st.calls[e.CallID] = e
	case *PermissionEvent:
		st.permission(e)
	case *SettingsEvent:
		st.settings = e
	case *InstructionsEvent:
		st.instructions = e
	case *ApprovalParkedEvent:
		st.parked[e.ApprovalID] = *e
		st.defs[e.CallID] = parkedDef{digest: e.Digest, description: e.Description}
		st.order = append(st.order, e.ApprovalID)
	case *ApprovalResolvedEvent:
		st.resolve(e)
	case *ToolResultEvent:
		st.answered[e.CallID] = true
		st.results[e.CallID] = e
	case *ToolTaskEvent:
		st.task(e)
	}
}

// message adds an entry of the conversation; a tool message answers its
// call.
func (st *logState) message(e *MessageEvent) {
	st.history = append(st.history, e.message())
	if e.Role == "tool" && e.ToolCallID != "" {
		st.answered[e.ToolCallID] = true
		st.messaged[e.ToolCallID] = true
	}
	st.turn = max(st.turn, e.Turn)
}

// permission notes a call that started ("allowed") or that the user
// denied. A person's approval covers one run: the start spends it, so a
// call in doubt run again goes through the gate afresh.
func (st *logState) permission(e *PermissionEvent) {
	switch {
	case e.Decision == "allowed":
		st.started[e.CallID]++
		delete(st.decided, e.CallID)
	case e.Decision == "denied" && e.By == "user":
		st.decided[e.CallID] = false
	}
}

// resolve records a person's decision on a parked call.
func (st *logState) resolve(e *ApprovalResolvedEvent) {
	if ap, ok := st.parked[e.ApprovalID]; ok {
		st.decided[ap.CallID] = e.Decision == "approved"
		delete(st.parked, e.ApprovalID)
	}
	st.resolved = append(st.resolved, e.ApprovalID)
}

// restoreGrants gives the gate back the session grants of the last
// settings.
func (s *Session) restoreGrants(last *SettingsEvent) {
	if last == nil {
		return
	}
	for name, digest := range last.Grants {
		s.gate.Grant(name, digest)
		s.set.grants[name] = digest
	}
}

// restoreApprovals restores the resolved approval ids and the approvals
// still pending (parked, unanswered), which it returns.
func (s *Session) restoreApprovals(st *logState) []permissions.Approval {
	var pending []permissions.Approval
	for _, id := range st.order {
		if ap, ok := st.parked[id]; ok && !st.answered[ap.CallID] {
			pending = append(pending, permissions.Approval{ID: id, CallID: ap.CallID, Server: ap.Server, Tool: ap.Tool,
				Name: ap.Tool, Arguments: ap.Arguments, Turn: ap.Turn, Created: ap.Time})
		}
	}
	s.approvals.RestoreResolved(st.resolved)
	s.approvals.Restore(pending)
	return pending
}

// restoreOwed takes up the last reply's calls: the unanswered ones are
// what the turn still owes; one whose result was logged but that latch
// stopped before the model's copy was gets what the log has, and the
// model owes a reply to it.
func (s *Session) restoreOwed(st *logState) {
	last, ok := st.lastReply()
	if !ok {
		return
	}
	for _, c := range last.ToolCalls {
		switch r := st.results[c.ID]; {
		case !st.answered[c.ID]:
			s.owed = append(s.owed, c)
		case r != nil && !st.messaged[c.ID]:
			s.history = append(s.history, restoredResult(c, r))
			s.goOn = true
		}
	}
}

// lastReply is the last message of the history that is not a tool's, if
// it is the model's.
func (st *logState) lastReply() (api.Message, bool) {
	for i := len(st.history) - 1; i >= 0; i-- {
		if m := st.history[i]; m.Role != "tool" {
			return m, m.Role == "assistant"
		}
	}
	return api.Message{}, false
}

// restoredResult is the tool message for call c made from its logged
// result.
func restoredResult(c api.ToolCall, r *ToolResultEvent) api.Message {
	content := r.Content
	if content == "" { // a log from before results were kept whole
		content = r.Preview
	}
	if r.Error != "" {
		content = errorJSON(r.Error)
	}
	return api.Message{Role: "tool", ToolName: c.Function.Name, ToolCallID: c.ID, Content: content}
}

// inDoubt lists the owed calls that had started: their outcome is
// unknown. One that was parked again since (its retry waits for a
// decision) is the pending approval's, not in doubt.
func (st *logState) inDoubt(owed []api.ToolCall) []InDoubt {
	var out []InDoubt
	for _, c := range owed {
		if _, task := st.tasks[c.ID]; st.started[c.ID] == 0 || task || st.parkedAgain(c.ID) {
			continue // not started, a task (polled again), or parked again
		}
		d := InDoubt{CallID: c.ID, Tool: c.Function.Name, Arguments: c.Function.Arguments.ToMap(), Turn: st.turn,
			Starts: st.started[c.ID]}
		if ev := st.calls[c.ID]; ev != nil {
			d.Server = ev.Server
		}
		out = append(out, d)
	}
	return out
}

// parkedAgain says whether call id has an approval still pending.
func (st *logState) parkedAgain(id string) bool {
	for _, ap := range st.parked {
		if ap.CallID == id {
			return true
		}
	}
	return false
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
		return fmt.Sprintf("call %s (%s) was running when latch stopped; its outcome is unknown%s: /retry %s runs it again through the gate, /dismiss %s tells the model", d.CallID, d.Tool, d.againNote(), d.CallID, d.CallID)
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
	s.SettleRetries()
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
