package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"latch/mcp"
	"latch/permissions"
)

// CallResult is what an upstream tool call returned (see mcp.Result).
type CallResult = mcp.Result

// Decisions on a gateway's call (GatewayOutcome.Decision).
const (
	GatewayAllowed = "allowed" // it ran: Result, or Error when it gave none
	GatewayDenied  = "denied"  // the gate refused it: Reason
	GatewayUnknown = "unknown" // no connected server has the tool
	GatewayParked  = "parked"  // it waits for a person (until Expires): poll GatewayAwait
	GatewayExpired = "expired" // no one decided in time: it never ran
	// GatewayLimited: GatewayCall.Admit refused a call that would have
	// parked (Reason says why); nothing of it is in the log.
	GatewayLimited = "limited"
)

// GatewayCall is one tool call an MCP client made through latch serve.
type GatewayCall struct {
	Client string // how the client is named to a person: its label (gateway.clientLabel)
	// Caller is the client as the config names it, for the rules with a
	// "client"; zero for a client it does not name.
	Caller    permissions.CallClient
	Name      string         // the tool's model-facing name (server__tool)
	Arguments map[string]any // as the client sent them
	// ParkUnlisted parks an unlisted tool's call in read_only mode
	// rather than refusing it.
	ParkUnlisted bool
	// TTL is how long a parked call waits; DefaultApprovalTTL when 0.
	TTL time.Duration
	// Progress, when set, is handed the upstream server's progress
	// notifications (redacted) while an allowed call runs; not those of
	// a parked call run later.
	Progress func(ToolProgress)
	// Ask is how long a call the gate would ask about waits for the
	// person at the chat (latch --serve) before it parks; 0 parks it at
	// once. A NonInteractive session asks no one.
	Ask time.Duration
	// Admit, when set, is asked before anything of a call that would
	// park (or be asked, and perhaps park) is logged, with the bytes the
	// call would put in the log while it waits (parkedSize). A refusal
	// refuses the call (GatewayLimited), nothing logged; otherwise
	// release is called once the call no longer waits (decided,
	// withdrawn, expired, or it never parked).
	Admit func(size int64) (release func(), refusal string)
}

// GatewayOutcome is what became of a GatewayCall.
type GatewayOutcome struct {
	ID       string      // the invocation id: the call's id in the session log
	Decision string      // GatewayAllowed, GatewayDenied or GatewayUnknown
	Reason   string      // why it was denied
	Result   *CallResult // an allowed call's upstream result, redacted
	Error    string      // why an allowed call gave no result
	Expires  time.Time   // when a parked call stops waiting
	Unlisted bool        // denied only as not allow-listed in read_only: it could wait for a person instead
}

// GatewayCall takes a client's call through the gate exactly as a model's
// call goes (the same tool table, gate, events and log; a call runs only
// once its "allowed" is on disk) and runs it if allowed. A call the gate
// would put to a person (ask mode, approve mode; see parks) is parked, as
// the chat's approve mode parks one, and GatewayParked returned at once:
// GatewayAwait tells what became of it, GatewayDecide decides it. In a
// chat's session (not NonInteractive) with gc.Ask set, a call of ask mode
// is first asked as the model's are (see gatewayAsk).
func (s *Session) GatewayCall(ctx context.Context, gc GatewayCall) GatewayOutcome {
	c := &toolCall{id: newInvocationID(), name: gc.Name, args: gc.Arguments}
	if c.args == nil {
		c.args = map[string]any{}
	}
	if s.servers != nil {
		c.tool, c.known = s.servers.Lookup(c.name)
	}
	c.perm = s.gateCall(c.tool, c.args)
	c.perm.Client = gc.Caller
	var v permissions.Verdict
	release := func() {}
	if c.known {
		// The gate decides before anything is logged, so that a call
		// over its client's quota of waiting calls leaves no trace.
		v = s.gate.Decide(c.perm)
		var refusal string
		if release, refusal = s.admit(c, v, gc); refusal != "" {
			return GatewayOutcome{Decision: GatewayLimited, Reason: refusal}
		}
	}
	parked := false
	defer func() {
		if !parked {
			release()
		}
	}()
	called := &ToolCallEvent{Header: s.header(TypeToolCall), CallID: c.id, Server: c.tool.Server,
		Tool: c.name, Arguments: c.args, ReadOnly: c.tool.ReadOnly, Destructive: c.tool.Destructive,
		Unsaid: c.tool.DestructiveUnsaid(), Client: gc.Client, ClientName: gc.Caller.Name, ClientVerified: gc.Caller.Verified}
	out := GatewayOutcome{ID: c.id}
	c.decidedBy(v)
	if c.known && v.Decision == permissions.Allow && v.Allowed() && !parks(v, gc.ParkUnlisted) {
		// The call and its "allowed" go to the log as one write and one
		// sync: the tool_call line is never synced alone anyway.
		s.publish(called, s.permissionEvent(c, "allowed", v.By, v.Reason))
		out.Decision = GatewayAllowed
		if gc.Progress != nil {
			defer s.watchProgress(c.id, gc.Progress)()
		}
		out.Result, out.Error = s.invoke(ctx, c)
		return out
	}
	s.publish(called)
	if !c.known {
		s.fail(c, s.unknownTool(c.name))
		out.Decision = GatewayUnknown
		return out
	}
	if v.Decision == permissions.AskUser && gc.Ask > 0 {
		out := s.gatewayAsk(ctx, c, gc, v.Reason, release)
		parked = out.Decision == GatewayParked
		return out
	}
	if parks(v, gc.ParkUnlisted) {
		parked = true
		return s.gatewayPark(c, gc.Client, v.Reason, gc.TTL, release)
	}
	if v.Decision != permissions.Allow || !v.Allowed() {
		out.Decision, out.Reason = GatewayDenied, gatewayDenial(c, v)
		out.Unlisted = v.Decision == permissions.Deny && v.Mode == permissions.ReadOnly && v.Rule == ""
		s.deny(c, permissions.ByPolicy, out.Reason, "denied: "+out.Reason)
		return out
	}
	// Not reached: an allowed call ran above. Fail closed all the same.
	out.Decision, out.Reason = GatewayDenied, "the gate gave no valid verdict"
	s.deny(c, permissions.ByPolicy, out.Reason, "denied: "+out.Reason)
	return out
}

// gatewayDenial is the reason a gateway's call is refused: a read_only
// call needs an allow-list entry.
func gatewayDenial(c *toolCall, v permissions.Verdict) string {
	switch {
	case v.Decision == permissions.Deny && v.Mode == permissions.ReadOnly && v.Rule == "":
		return permissions.GatewayReason(c.perm, v.Mode)
	case v.Reason != "":
		return v.Reason
	}
	return "the gate gave no valid verdict"
}

// gatewayIDPrefix starts every gateway call's invocation id.
const gatewayIDPrefix = "gw_"

// newInvocationID names a gateway's call: "gw_" and 12 random hex digits.
func newInvocationID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return gatewayIDPrefix + hex.EncodeToString(b[:])
}

// gatewayAsk puts a client's call to the person at the chat, as a model's
// asked call is put (the "asked" event opens the same box, which names
// the client), and waits at most gc.Ask: y runs it and the client gets
// its result on this call, a and A grant it as for the model's calls, n
// refuses it. Esc (AnswerLater), no answer in time, or latch closing
// parks it: the client gets the awaiting result at once. A client that
// gives up its call first has it refused: no one approves a call its
// client no longer waits for.
func (s *Session) gatewayAsk(ctx context.Context, c *toolCall, gc GatewayCall, reason string, release func()) GatewayOutcome {
	s.noteSavedChanged(c)
	ans, answered := s.askFor(ctx, c, gc.Ask, func() { s.permission(c, "asked", "policy", reason) })
	out := GatewayOutcome{ID: c.id}
	switch {
	case !answered && ctx.Err() != nil:
		out.Decision, out.Reason = GatewayDenied, "cancelled: the client gave up the call before a person answered"
		s.deny(c, "client", out.Reason, out.Reason)
		return out
	case !answered, ans == AnswerLater:
		return s.gatewayPark(c, gc.Client, reason, gc.TTL, release)
	case !ans.runs():
		s.gate.RecordDecision(c.id, false)
		out.Decision, out.Reason = GatewayDenied, "declined by the person at latch's chat"
		s.deny(c, "user", "the user said no", "denied: "+out.Reason)
		return out
	}
	s.gate.RecordDecision(c.id, true)
	if s.refuseByRules(c, &out) {
		return out
	}
	s.applyAnswer(c, ans)
	s.permission(c, "allowed", "user", "")
	out.Decision = GatewayAllowed
	out.Result, out.Error = s.invoke(ctx, c)
	return out
}

// askFor waits up to d for the person's answer to an asked call (see
// waitAnswer), or until ctx ends or latch closes. An answer given as the
// wait ends is taken, never lost: once the wait gives up, the call is no
// longer askable, and whatever came before that counts.
func (s *Session) askFor(ctx context.Context, c *toolCall, d time.Duration, announce func()) (Answer, bool) {
	ch := make(chan Answer, 1)
	s.mu.Lock()
	s.asks[c.id] = asked{ch: ch, call: c.perm}
	s.mu.Unlock()
	announce()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case a := <-ch:
		return a, true
	case <-t.C:
	case <-ctx.Done():
	case <-s.quit:
	}
	s.mu.Lock()
	delete(s.asks, c.id)
	s.mu.Unlock()
	select {
	case a := <-ch: // answered as the wait ended
		return a, true
	default:
		return AnswerNo, false
	}
}
