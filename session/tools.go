package session

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp"
	"latch/permissions"
)

// previewBytes caps the result preview in a tool_result event.
const previewBytes = 2000

// Answer is the user's reply to an asked call.
type Answer int

// Answers to the y/n modal.
const (
	AnswerNo     Answer = iota // deny this call
	AnswerYes                  // run it once
	AnswerAlways               // run it, and allow the tool for the rest of the session
	AnswerSave                 // run it, and allow the tool always: saved, for its current definition
	// AnswerLater decides later (Esc on a gateway client's call): the
	// call parks, for /approve, latch approve or the client's poll. A
	// model's asked call cannot wait: it is denied.
	AnswerLater
	// AnswerExact runs the call, and allows the tool with these exact
	// arguments for the rest of the session: the same tool with other
	// arguments is asked about again (`e`; `a` on a server with
	// approve_args "exact").
	AnswerExact
)

// runs says whether the answer runs the call; anything else refuses it.
func (a Answer) runs() bool {
	return a == AnswerYes || a == AnswerAlways || a == AnswerSave || a == AnswerExact
}

// ollamaTools converts tools for the chat request.
func ollamaTools(tools []mcp.Tool) api.Tools {
	if len(tools) == 0 {
		return nil
	}
	out := make(api.Tools, 0, len(tools))
	for _, t := range tools {
		out = append(out, toOllamaTool(t))
	}
	return out
}

// toOllamaTool is a tool's definition as a request carries it: its
// schema's keywords that Ollama's types cannot hold are noted in its
// description (toolschema.go).
func toOllamaTool(t mcp.Tool) api.Tool {
	params, rest := modelParams(t.InputSchema)
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return api.Tool{Type: "function", Function: api.ToolFunction{
		Name: t.Name, Description: withSchemaNote(desc, rest, "\n\nArguments: "), Parameters: params,
	}}
}

var callSeq atomic.Int64

// toolCall is one call of the model on its way through the gate: what it
// names, and what was decided on it before a restart.
type toolCall struct {
	turn    int
	id      string // the call id ("call_N" when the model gave none)
	modelID string // the id the model gave, "" when none: the reply carries it
	name    string // the name the model used
	args    map[string]any
	tool    mcp.Tool // zero when unknown
	known   bool
	perm    permissions.Call
	mode    permissions.Mode // the effective mode the gate decided in
	rule    string           // the argument rule that decided, "" when none did

	dismissed bool // a call in doubt the user chose not to run again
	retried   bool // a call in doubt run again on its own (effects.go)
	taskLeft  bool // latch closed while it ran as a task: no answer; a resume polls the task
	prior     bool // the decision made before a restart, if hasPrior
	hasPrior  bool
}

// gateCall is what the gate decides on for a call of t with args: the
// tool as the session's own table has it, the arguments as sent, and the
// folders its server may resolve a relative path against, as they are now.
func (s *Session) gateCall(t mcp.Tool, args map[string]any) permissions.Call {
	return permissions.Call{Server: t.Server, Tool: t.Original, Name: t.Name, Digest: t.Digest, Args: args,
		Bases: s.bases(t.Server)}
}

// decidedBy keeps what the gate's verdict says of the call: the mode it
// was decided in and the rule that decided, for its permission events.
func (c *toolCall) decidedBy(v permissions.Verdict) {
	c.mode, c.rule = v.Mode, v.Rule
}

// ruling is what became of a call at the gate: it runs, it is refused
// (refusal answers it), or it stays owed: parked and unanswered, for
// --resume, because the session closed while it waited.
type ruling struct {
	run     bool
	owed    bool
	refusal api.Message
}

var (
	runCall   = ruling{run: true}
	leaveOwed = ruling{owed: true}
)

func refuse(m api.Message) ruling { return ruling{refusal: m} }

// runToolCall takes one call of the model through the gate, runs it if
// allowed, publishes what happens, and returns the tool message for the
// model. Nothing here raises into the loop: every failure becomes a result
// the model reads. The one exception: a call still waiting for approval
// when the session closes gets no answer (answered is false): it stays
// parked in the log, for --resume.
func (s *Session) runToolCall(ctx context.Context, turn int, call api.ToolCall) (msg api.Message, answered bool) {
	c := s.lookUp(turn, call)
	if task, ok := s.resumedTask(c.id); ok {
		return s.pollResumed(ctx, c, task)
	}
	if why := cmp.Or(s.retryRefused(c), s.notCallable(c)); why != "" {
		return s.fail(c, why), true
	}
	v := s.gate.Decide(c.perm)
	c.decidedBy(v)
	r, settled := s.rulePrior(c)
	if !settled {
		switch v.Decision {
		case permissions.Deny:
			r = s.deny(c, v.By, v.Reason, "denied: "+v.Reason)
			s.explainReadOnly(c, v)
		case permissions.AskUser:
			r = s.ask(ctx, c, v.Reason)
		case permissions.Park:
			r = s.park(ctx, c, v.Reason)
		case permissions.Allow:
			r = s.allow(c, v)
		default: // fail closed on anything unknown
			r = s.deny(c, "policy", "the gate gave no valid verdict", "denied: the gate gave no valid verdict")
		}
	}
	switch {
	case r.owed:
		return api.Message{}, false
	case !r.run:
		return r.refusal, true
	}
	return s.execute(ctx, c)
}

// lookUp finds the tool a call names, publishes the call, and takes what
// was decided on it before a restart.
func (s *Session) lookUp(turn int, call api.ToolCall) *toolCall {
	c := &toolCall{turn: turn, id: call.ID, modelID: call.ID, name: call.Function.Name,
		args: call.Function.Arguments.ToMap()}
	if c.id == "" {
		c.id = fmt.Sprintf("call_%d", callSeq.Add(1))
	}
	if c.args == nil {
		c.args = map[string]any{}
	}
	if s.servers != nil {
		c.tool, c.known = s.servers.Lookup(c.name)
	}
	c.perm = s.gateCall(c.tool, c.args)
	s.publish(&ToolCallEvent{Header: s.header(TypeToolCall), Turn: turn, CallID: c.id, Server: c.tool.Server,
		Tool: c.name, Arguments: c.args, ReadOnly: c.tool.ReadOnly, Destructive: c.tool.Destructive,
		Unsaid: c.tool.DestructiveUnsaid(), FromText: s.fromTextCall(c.id)})
	s.mu.Lock()
	c.dismissed = s.dismissed[c.id]
	c.prior, c.hasPrior = s.decided[c.id]
	s.mu.Unlock()
	return c
}

// notCallable says why a call goes nowhere near the gate, or "": the user
// dismissed it, or no server has the tool.
func (s *Session) notCallable(c *toolCall) string {
	switch {
	case c.dismissed:
		return "outcome unknown: latch stopped while this call was running, and the user chose not to run it again"
	case !c.known:
		return s.unknownTool(c.name)
	}
	return ""
}

// rulePrior applies a decision made before a restart: a rejection is
// final, and an approval runs the call whatever the gate's mode and
// allow-lists say now — the person decided — unless a deny rule of the
// moment matches it (recheck.go: refused, naming the rule) or the tool
// changed since; then the gate decides afresh (settled is false, as it
// is without a prior decision).
func (s *Session) rulePrior(c *toolCall) (r ruling, settled bool) {
	if !c.hasPrior {
		return ruling{}, false
	}
	def, wasParked := s.parkedDefs[c.id]
	if !c.prior {
		msg := "denied: the user declined this call"
		if wasParked {
			msg = "denied: the user rejected this call"
		}
		return s.deny(c, "user", "decided before the restart", msg), true
	}
	change := def.changed(c.tool)
	if change == "" {
		if why := s.refusedNow(c); why != "" {
			return s.deny(c, "policy", why, why), true
		}
		s.permission(c, "allowed", "user", "approved before the restart")
		return runCall, true
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: c.name + " changed since call " + c.id +
		" was approved (" + change + "): the approval does not cover it, so it is decided again"})
	return ruling{}, false
}

// deny refuses a call: the permission event says who and why (reason),
// the model reads msg.
func (s *Session) deny(c *toolCall, by, reason, msg string) ruling {
	s.permission(c, "denied", by, reason)
	if c.retried {
		msg = retryRefusedNote + msg
	}
	return refuse(s.fail(c, msg))
}

// allow runs a call the gate allowed, if the verdict is a valid one.
func (s *Session) allow(c *toolCall, v permissions.Verdict) ruling {
	if !v.Allowed() {
		return s.deny(c, "policy", "the gate gave no valid verdict", "denied: the gate gave no valid verdict")
	}
	s.permission(c, "allowed", v.By, v.Reason)
	return runCall
}

// ask puts the call to the user (the y/n modal) and waits for the answer.
func (s *Session) ask(ctx context.Context, c *toolCall, reason string) ruling {
	s.noteSavedChanged(c)
	ans, err := s.waitAnswer(ctx, c, func() { s.permission(c, "asked", "policy", reason) })
	if err != nil {
		return s.deny(c, "user", "the turn was cancelled before an answer",
			"cancelled: the user cancelled the turn before deciding")
	}
	crashAt("before-decision")
	s.gate.RecordDecision(c.id, ans.runs())
	if !ans.runs() {
		return s.deny(c, "user", "the user said no", "denied: the user declined this call")
	}
	if why := s.refusedNow(c); why != "" {
		return s.deny(c, "policy", why, why)
	}
	s.applyAnswer(c, ans)
	s.permission(c, "allowed", "user", "")
	crashAt("after-decision")
	return runCall
}

// park parks the call until /approve or /reject, and waits for the
// decision.
func (s *Session) park(ctx context.Context, c *toolCall, reason string) ruling {
	wait := make(chan bool, 1)
	s.mu.Lock()
	id := s.parkLocked(c, func(approve bool, _, _ string) { wait <- approve })
	s.mu.Unlock()
	s.permission(c, "parked", "policy", reason)
	s.publish(&ApprovalParkedEvent{Header: s.header(TypeApprovalParked), Turn: c.turn, ApprovalID: id,
		CallID: c.id, Server: c.tool.Server, Tool: c.name, Arguments: c.args, Digest: c.tool.Digest,
		Description: c.tool.Description})
	approved, err := s.waitApproval(ctx, id, wait)
	if err != nil {
		return s.abandonParked(c, id)
	}
	crashAt("before-decision")
	s.gate.RecordDecision(c.id, approved)
	s.publishResolved(id, c.id, approved)
	if !approved {
		return s.deny(c, "user", "rejected with /reject "+id, "denied: the user rejected this call")
	}
	// The decision is on disk; "allowed" marks the start of the call
	// (a resumed session treats an allowed call without a result as
	// in doubt).
	crashAt("after-decision")
	if why := s.refusedNow(c); why != "" {
		return s.deny(c, "policy", why, why)
	}
	if why, changed := s.changedWhileParked(c); changed {
		return s.deny(c, "policy", "the tool changed while the call waited for approval ("+why+")",
			"not run: "+c.name+" changed while the call waited for approval ("+why+"); call it again to have it decided again")
	}
	s.permission(c, "allowed", "user", "approved")
	return runCall
}

// onDecision is what a person's decision on a parked call sets going:
// the chat's turn, waiting for it, or a gateway's call, settled then. It
// is called once, by whoever took the call out of the waiting ones
// (takeParked), with who decided and why.
type onDecision func(approve bool, by, reason string)

// parkLocked parks the call and registers what its decision does, at
// once: a Decide as soon as the approval is listed finds the call. The
// caller holds s.mu.
func (s *Session) parkLocked(c *toolCall, decided onDecision) string {
	ap := s.approvals.Park(permissions.Approval{CallID: c.id, Server: c.tool.Server, Tool: c.tool.Original,
		Name: c.tool.Name, Arguments: c.args, Turn: c.turn, Created: time.Now().UTC()})
	s.parked[ap.ID] = decided
	return ap.ID
}

// takeParked takes the call parked as id out of the waiting ones, its
// approval resolved, and returns what its decision does: the one decision
// (or expiry) that applies to it. waiting is false when it was not
// waiting. The caller holds s.mu.
func (s *Session) takeParked(id string) (decided onDecision, waiting bool) {
	decided, waiting = s.parked[id]
	if waiting {
		delete(s.parked, id)
		_, _ = s.approvals.Resolve(id)
	}
	return decided, waiting
}

// abandonParked ends the wait of a parked call whose turn ended before a
// decision.
func (s *Session) abandonParked(c *toolCall, id string) ruling {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		// latch is exiting (a -p run that parked, or a quit): the
		// approval stays pending in the log, for --resume.
		return leaveOwed
	}
	// The turn was cancelled (Esc): the approval is void. Left pending,
	// it would still be listed, and a later /approve would "succeed"
	// without running anything.
	s.mu.Lock()
	delete(s.parked, id)
	_, _ = s.approvals.Resolve(id)
	s.mu.Unlock()
	return refuse(s.fail(c, "cancelled: the turn was cancelled while the call waited for approval "+id))
}

// changedWhileParked says whether the call's tool is gone or changed
// since the call was parked, and how.
func (s *Session) changedWhileParked(c *toolCall) (why string, changed bool) {
	cur, ok := s.servers.Lookup(c.name)
	switch {
	case !ok:
		return "it is gone", true
	case cur.Digest != c.tool.Digest:
		return parkedDef{digest: c.tool.Digest, description: c.tool.Description}.changed(cur), true
	}
	return "", false
}

// publishResolved publishes a person's decision on a parked call.
func (s *Session) publishResolved(approvalID, callID string, approved bool) {
	decision := "rejected"
	if approved {
		decision = "approved"
	}
	s.publishDecision(approvalID, callID, decision, "user", "")
}

// publishDecision publishes what became of a parked call, who decided
// and why.
func (s *Session) publishDecision(approvalID, callID, decision, by, reason string) {
	s.publish(&ApprovalResolvedEvent{Header: s.header(TypeApprovalResolved), ApprovalID: approvalID, CallID: callID,
		Decision: decision, By: by, Reason: reason})
}

// permission publishes the gate's (or the user's) decision on a call.
func (s *Session) permission(c *toolCall, decision, by, reason string) {
	s.publish(s.permissionEvent(c, decision, by, reason))
}

// permissionEvent is the event of the gate's (or the user's) decision on
// a call.
func (s *Session) permissionEvent(c *toolCall, decision, by, reason string) *PermissionEvent {
	return &PermissionEvent{Header: s.header(TypePermission), Turn: c.turn, CallID: c.id, Tool: c.name,
		Decision: decision, By: by, Reason: reason, Mode: c.mode.String(), Rule: c.rule}
}

// reply is the tool message that answers the call with content.
func (c *toolCall) reply(content string) api.Message {
	return api.Message{Role: "tool", ToolName: c.name, ToolCallID: c.modelID, Content: content}
}

// fail answers a call that did not run: a failed tool_result, and msg
// for the model.
func (s *Session) fail(c *toolCall, msg string) api.Message {
	s.publish(&ToolResultEvent{Header: s.header(TypeToolResult), Turn: c.turn, CallID: c.id, Tool: c.name, Error: msg})
	return c.reply(errorJSON(msg))
}

// execute runs an allowed call. Esc (CancelTools) cancels just this call:
// the model is told, and the turn goes on.
func (s *Session) execute(ctx context.Context, c *toolCall) (msg api.Message, answered bool) {
	res, why := s.invoke(ctx, c)
	switch {
	case c.taskLeft:
		return api.Message{}, false // its task runs on: a resume polls it
	case res == nil:
		return c.reply(errorJSON(why)), true
	}
	return c.reply(res.Text), true
}

// invoke runs an allowed call and publishes its tool_result: the server's
// result, or nil and why there is none.
func (s *Session) invoke(ctx context.Context, c *toolCall) (*mcp.Result, string) {
	// Fail closed: a call runs only once its "allowed" is on disk. While
	// the log cannot be written, nothing runs that a resume could not
	// account for.
	if why := s.LogProblem(); why != "" {
		msg := NotRunLogBroken + " (" + why + "); latch runs no tool call it cannot record"
		s.fail(c, msg)
		return nil, msg
	}
	start := time.Now()
	if crashPoint == "during-call" {
		go func() { time.Sleep(150 * time.Millisecond); crashAt("during-call") }()
	}
	s.el.callStarted(c.tool.Server)
	res, err := s.servers.Call(ctx, c.tool.Name, c.args, c.id)
	s.el.callEnded(c.tool.Server)
	return s.finishCall(c, start, res, err)
}

// finishCall publishes the tool_result of a call that ran (since start):
// the server's result, or nil and why there is none.
func (s *Session) finishCall(c *toolCall, start time.Time, res *mcp.Result, err error) (*mcp.Result, string) {
	if err != nil && s.leavesTaskOwed(err) {
		c.taskLeft = true
		return nil, "latch closed while the call's task ran"
	}
	ev := &ToolResultEvent{Header: s.header(TypeToolResult), Turn: c.turn, CallID: c.id, Tool: c.tool.Name,
		DurationMS: time.Since(start).Milliseconds(), soon: strings.HasPrefix(c.id, gatewayIDPrefix)}
	if err != nil {
		msg, cancelled := callErrorText(err)
		ev.Cancelled = cancelled
		ev.Error = msg
		s.publish(ev)
		return nil, msg
	}
	ev.OK = !res.IsError
	ev.IsError = res.IsError
	ev.Size = res.Size
	ev.Preview = preview(res.Text)
	ev.Content = res.Text
	for _, r := range res.Resources {
		ev.Resources = append(ev.Resources, r.URI)
	}
	keepForClient(c.id, ev, res)
	s.publish(ev)
	crashAt("after-result")
	return res, ""
}

// NotRunLogBroken starts the error of a call refused because the session
// log could not be written.
const NotRunLogBroken = "not run: the session log cannot be written"

func preview(s string) string {
	if len(s) <= previewBytes {
		return s
	}
	cut := previewBytes
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func errorJSON(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

func (s *Session) unknownTool(name string) string {
	var names []string
	if s.servers != nil {
		for _, t := range s.servers.Tools() {
			names = append(names, t.Name)
		}
	}
	sort.Strings(names)
	if len(names) > 20 {
		names = append(names[:20], "…")
	}
	if len(names) == 0 {
		return fmt.Sprintf("unknown tool %q: no tools are available", name)
	}
	return fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(names, ", "))
}

// waitAnswer blocks until the user answers the asked call, or ctx ends.
// It calls announce (which publishes the "asked" event) once the call is
// registered, so that an answer given as soon as the event is seen is not
// lost.
func (s *Session) waitAnswer(ctx context.Context, c *toolCall, announce func()) (Answer, error) {
	ch := make(chan Answer, 1)
	s.mu.Lock()
	s.asks[c.id] = asked{ch: ch, call: c.perm}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.asks, c.id)
		s.mu.Unlock()
	}()
	announce()
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		return AnswerNo, ctx.Err()
	}
}

// AnswerAsk delivers the user's answer to an asked call. The first answer
// wins; later ones do nothing.
func (s *Session) AnswerAsk(callID string, a Answer) bool {
	s.mu.Lock()
	w, ok := s.asks[callID]
	delete(s.asks, callID)
	s.mu.Unlock()
	if ok {
		w.ch <- a
	}
	return ok
}

// waitApproval blocks until the parked call, registered in s.parked to
// send to ch, is approved or rejected.
func (s *Session) waitApproval(ctx context.Context, id string, ch chan bool) (bool, error) {
	defer func() {
		s.mu.Lock()
		delete(s.parked, id)
		s.mu.Unlock()
	}()
	select {
	case ok := <-ch:
		return ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Decide approves or rejects a parked call by its approval id. A decision
// applies exactly once.
func (s *Session) Decide(id string, approve bool) error {
	s.mu.Lock()
	decided, ok := s.takeParked(id)
	s.mu.Unlock()
	if !ok {
		// A call parked before a restart: record the decision, and let
		// the turn go on once nothing else blocks it.
		ap, err := s.approvals.Resolve(id)
		if err != nil {
			return err
		}
		crashAt("before-decision")
		s.mu.Lock()
		s.decided[ap.CallID] = approve
		s.mu.Unlock()
		s.publishResolved(id, ap.CallID, approve)
		crashAt("after-decision")
		s.Continue()
		return nil
	}
	decided(approve, "user", "")
	return nil
}

// Approvals lists the parked calls, oldest first, with every credential
// the servers' manager knows redacted from them (the arguments come from
// the model or a gateway's client).
func (s *Session) Approvals() []permissions.Approval {
	return mcp.RedactAll(s.servers, s.approvals.Pending())
}

// CancelTools cancels the running tool calls (Esc while a tool runs); the
// model is told and the turn goes on. It reports whether any was running.
func (s *Session) CancelTools() bool {
	return s.servers != nil && s.servers.CancelCalls() > 0
}
