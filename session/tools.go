package session

import (
	"context"
	"encoding/json"
	"errors"
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
)

// ollamaTools converts the connected servers' tools for the chat request.
func (s *Session) ollamaTools() api.Tools {
	if s.servers == nil {
		return nil
	}
	var out api.Tools
	for _, t := range s.servers.Tools() {
		var params api.ToolFunctionParameters
		raw, err := json.Marshal(t.InputSchema)
		if err == nil {
			_ = json.Unmarshal(raw, &params)
		}
		if params.Type == "" {
			params.Type = "object"
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		out = append(out, api.Tool{Type: "function", Function: api.ToolFunction{
			Name: t.Name, Description: desc, Parameters: params,
		}})
	}
	return out
}

var callSeq atomic.Int64

// runToolCall takes one call of the model through the gate, runs it if
// allowed, publishes what happens, and returns the tool message for the
// model. Nothing here raises into the loop: every failure becomes a result
// the model reads. The one exception: a call still waiting for approval
// when the session closes gets no answer (a zero Message, Role ""): it
// stays parked in the log, for --resume.
func (s *Session) runToolCall(ctx context.Context, turn int, call api.ToolCall) api.Message {
	name := call.Function.Name
	callID := call.ID
	if callID == "" {
		callID = fmt.Sprintf("call_%d", callSeq.Add(1))
	}
	args := call.Function.Arguments.ToMap()
	if args == nil {
		args = map[string]any{}
	}
	reply := func(content string) api.Message {
		return api.Message{Role: "tool", ToolName: name, ToolCallID: call.ID, Content: content}
	}
	fail := func(msg string) api.Message {
		s.publish(&ToolResultEvent{Header: s.header(TypeToolResult), Turn: turn, CallID: callID, Tool: name, Error: msg})
		return reply(errorJSON(msg))
	}

	var tool mcp.Tool
	known := false
	if s.servers != nil {
		tool, known = s.servers.Lookup(name)
	}
	s.publish(&ToolCallEvent{Header: s.header(TypeToolCall), Turn: turn, CallID: callID, Server: tool.Server,
		Tool: name, Arguments: args, ReadOnly: tool.ReadOnly, Destructive: tool.Destructive})
	s.mu.Lock()
	dismissed := s.dismissed[callID]
	prior, hasPrior := s.decided[callID]
	s.mu.Unlock()
	if dismissed {
		return fail("outcome unknown: latch stopped while this call was running, and the user chose not to run it again")
	}
	if !known {
		return fail(s.unknownTool(name))
	}

	pc := permissions.Call{Server: tool.Server, Tool: tool.Original, Name: tool.Name, Digest: tool.Digest}
	v := s.gate.Decide(pc)
	if hasPrior {
		// Decided before a restart: a rejection is final, and an approval
		// runs the call whatever the gate says now — the person decided —
		// unless the tool changed since; then the gate decides afresh.
		def, wasParked := s.parkedDefs[callID]
		if !prior {
			s.publishPermission(turn, callID, name, "denied", "user", "decided before the restart", v.Mode)
			if wasParked {
				return fail("denied: the user rejected this call")
			}
			return fail("denied: the user declined this call")
		}
		change := def.changed(tool)
		if change == "" {
			s.publishPermission(turn, callID, name, "allowed", "user", "approved before the restart", v.Mode)
			return s.execute(ctx, turn, callID, tool, args, reply, fail)
		}
		s.publish(&Notice{Header: s.header(TypeNotice), Text: name + " changed since call " + callID +
			" was approved (" + change + "): the approval does not cover it, so it is decided again"})
	}
	perm := func(decision, by, reason string) {
		s.publish(&PermissionEvent{Header: s.header(TypePermission), Turn: turn, CallID: callID, Tool: name,
			Decision: decision, By: by, Reason: reason, Mode: v.Mode.String()})
	}
	switch v.Decision {
	case permissions.Deny:
		perm("denied", v.By, v.Reason)
		return fail("denied: " + v.Reason)
	case permissions.AskUser:
		ans, err := s.waitAnswer(ctx, callID, func() { perm("asked", "policy", v.Reason) })
		if err != nil {
			perm("denied", "user", "the turn was cancelled before an answer")
			return fail("cancelled: the user cancelled the turn before deciding")
		}
		crashAt("before-decision")
		s.gate.RecordDecision(callID, ans != AnswerNo)
		if ans == AnswerNo {
			perm("denied", "user", "the user said no")
			return fail("denied: the user declined this call")
		}
		if ans == AnswerAlways {
			s.grant(pc)
		}
		perm("allowed", "user", "")
		crashAt("after-decision")
	case permissions.Park:
		// Park and register the waiting call at once, under mu as Decide
		// is: a Decide as soon as the approval is listed finds the call.
		wait := make(chan bool, 1)
		s.mu.Lock()
		ap := s.approvals.Park(permissions.Approval{CallID: callID, Server: tool.Server, Tool: tool.Original,
			Name: tool.Name, Arguments: args, Turn: turn, Created: time.Now().UTC()})
		s.parked[ap.ID] = wait
		s.mu.Unlock()
		perm("parked", "policy", v.Reason)
		s.publish(&ApprovalParkedEvent{Header: s.header(TypeApprovalParked), Turn: turn, ApprovalID: ap.ID,
			CallID: callID, Server: tool.Server, Tool: name, Arguments: args, Digest: tool.Digest,
			Description: tool.Description})
		ok, err := s.waitApproval(ctx, ap.ID, wait)
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				// latch is exiting (a -p run that parked, or a quit): the
				// approval stays pending in the log, for --resume.
				return api.Message{}
			}
			// The turn was cancelled (Esc): the approval is void. Left
			// pending, it would still be listed, and a later /approve
			// would "succeed" without running anything.
			s.mu.Lock()
			delete(s.parked, ap.ID)
			_, _ = s.approvals.Resolve(ap.ID)
			s.mu.Unlock()
			return fail("cancelled: the turn was cancelled while the call waited for approval " + ap.ID)
		}
		crashAt("before-decision")
		s.gate.RecordDecision(callID, ok)
		decision := "rejected"
		if ok {
			decision = "approved"
		}
		s.publish(&ApprovalResolvedEvent{Header: s.header(TypeApprovalResolved), ApprovalID: ap.ID, CallID: callID,
			Decision: decision, By: "user"})
		if !ok {
			perm("denied", "user", "rejected with /reject "+ap.ID)
			return fail("denied: the user rejected this call")
		}
		// The decision is on disk; "allowed" marks the start of the call
		// (a resumed session treats an allowed call without a result as
		// in doubt).
		crashAt("after-decision")
		if cur, ok := s.servers.Lookup(name); !ok || cur.Digest != tool.Digest {
			why := "it is gone"
			if ok {
				why = parkedDef{digest: tool.Digest, description: tool.Description}.changed(cur)
			}
			perm("denied", "policy", "the tool changed while the call waited for approval ("+why+")")
			return fail("not run: " + name + " changed while the call waited for approval (" + why + "); call it again to have it decided again")
		}
		perm("allowed", "user", "approved")
	case permissions.Allow:
		if !v.Allowed() {
			perm("denied", "policy", "the gate gave no valid verdict")
			return fail("denied: the gate gave no valid verdict")
		}
		perm("allowed", v.By, v.Reason)
	default: // fail closed on anything unknown
		perm("denied", "policy", "the gate gave no valid verdict")
		return fail("denied: the gate gave no valid verdict")
	}
	return s.execute(ctx, turn, callID, tool, args, reply, fail)
}

func (s *Session) publishPermission(turn int, callID, tool, decision, by, reason string, mode permissions.Mode) {
	s.publish(&PermissionEvent{Header: s.header(TypePermission), Turn: turn, CallID: callID, Tool: tool,
		Decision: decision, By: by, Reason: reason, Mode: mode.String()})
}

// execute runs an allowed call. Esc (CancelTools) cancels just this call:
// the model is told, and the turn goes on.
func (s *Session) execute(ctx context.Context, turn int, callID string, tool mcp.Tool, args map[string]any,
	reply func(string) api.Message, fail func(string) api.Message) api.Message {
	// Fail closed: a call runs only once its "allowed" is on disk. While
	// the log cannot be written, nothing runs that a resume could not
	// account for.
	if why := s.LogProblem(); why != "" {
		return fail(NotRunLogBroken + " (" + why + "); latch runs no tool call it cannot record")
	}
	start := time.Now()
	if crashPoint == "during-call" {
		go func() { time.Sleep(150 * time.Millisecond); crashAt("during-call") }()
	}
	res, err := s.servers.Call(ctx, tool.Name, args, callID)
	ev := &ToolResultEvent{Header: s.header(TypeToolResult), Turn: turn, CallID: callID, Tool: tool.Name,
		DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		msg := err.Error()
		if errors.Is(err, mcp.ErrCancelled) {
			ev.Cancelled = true
			msg = "cancelled: the user stopped this call"
		}
		ev.Error = msg
		s.publish(ev)
		return reply(errorJSON(msg))
	}
	ev.OK = !res.IsError
	ev.IsError = res.IsError
	ev.Size = res.Size
	ev.Preview = preview(res.Text)
	ev.Content = res.Text
	s.publish(ev)
	crashAt("after-result")
	return reply(res.Text)
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
func (s *Session) waitAnswer(ctx context.Context, callID string, announce func()) (Answer, error) {
	ch := make(chan Answer, 1)
	s.mu.Lock()
	s.asks[callID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.asks, callID)
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
	ch, ok := s.asks[callID]
	delete(s.asks, callID)
	s.mu.Unlock()
	if ok {
		ch <- a
	}
	return ok
}

// waitApproval blocks until the parked call, registered in s.parked with
// ch, is approved or rejected.
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
	ch, ok := s.parked[id]
	if ok {
		if _, err := s.approvals.Resolve(id); err != nil {
			s.mu.Unlock()
			return err
		}
		delete(s.parked, id)
	}
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
		decision := "rejected"
		if approve {
			decision = "approved"
		}
		s.publish(&ApprovalResolvedEvent{Header: s.header(TypeApprovalResolved), ApprovalID: id, CallID: ap.CallID,
			Decision: decision, By: "user"})
		crashAt("after-decision")
		s.Continue()
		return nil
	}
	ch <- approve
	return nil
}

// Approvals lists the parked calls, oldest first.
func (s *Session) Approvals() []permissions.Approval { return s.approvals.Pending() }

// CancelTools cancels the running tool calls (Esc while a tool runs); the
// model is told and the turn goes on. It reports whether any was running.
func (s *Session) CancelTools() bool {
	return s.servers != nil && s.servers.CancelCalls() > 0
}
