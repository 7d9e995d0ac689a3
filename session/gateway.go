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
)

// GatewayCall is one tool call an MCP client made through latch serve.
type GatewayCall struct {
	Client    string         // the client's clientInfo name
	Name      string         // the tool's model-facing name (server__tool)
	Arguments map[string]any // as the client sent them
	// ParkUnlisted parks an unlisted tool's call in read_only mode
	// rather than refusing it.
	ParkUnlisted bool
	// TTL is how long a parked call waits; DefaultApprovalTTL when 0.
	TTL time.Duration
}

// GatewayOutcome is what became of a GatewayCall.
type GatewayOutcome struct {
	ID       string      // the invocation id: the call's id in the session log
	Decision string      // GatewayAllowed, GatewayDenied or GatewayUnknown
	Reason   string      // why it was denied
	Result   *CallResult // an allowed call's upstream result, redacted
	Error    string      // why an allowed call gave no result
	Expires  time.Time   // when a parked call stops waiting
}

// GatewayCall takes a client's call through the gate exactly as a model's
// call goes (the same tool table, gate, events and log; a call runs only
// once its "allowed" is on disk) and runs it if allowed. A call the gate
// would put to a person (ask mode, approve mode; see parks) is parked, as
// the chat's approve mode parks one, and GatewayParked returned at once:
// GatewayAwait tells what became of it, GatewayDecide decides it. The
// session must be NonInteractive.
func (s *Session) GatewayCall(ctx context.Context, gc GatewayCall) GatewayOutcome {
	c := &toolCall{id: newInvocationID(), name: gc.Name, args: gc.Arguments}
	if c.args == nil {
		c.args = map[string]any{}
	}
	if s.servers != nil {
		c.tool, c.known = s.servers.Lookup(c.name)
	}
	c.perm = gateCall(c.tool, c.args)
	s.publish(&ToolCallEvent{Header: s.header(TypeToolCall), CallID: c.id, Server: c.tool.Server,
		Tool: c.name, Arguments: c.args, ReadOnly: c.tool.ReadOnly, Destructive: c.tool.Destructive,
		Client: gc.Client})
	out := GatewayOutcome{ID: c.id}
	if !c.known {
		s.fail(c, s.unknownTool(c.name))
		out.Decision = GatewayUnknown
		return out
	}
	v := s.gate.Decide(c.perm)
	c.decidedBy(v)
	if parks(v, gc.ParkUnlisted) {
		return s.gatewayPark(c, gc.Client, v.Reason, gc.TTL)
	}
	if v.Decision != permissions.Allow || !v.Allowed() {
		out.Decision, out.Reason = GatewayDenied, gatewayDenial(c, v)
		s.deny(c, permissions.ByPolicy, out.Reason, "denied: "+out.Reason)
		return out
	}
	s.permission(c, "allowed", v.By, v.Reason)
	out.Decision = GatewayAllowed
	out.Result, out.Error = s.invoke(ctx, c)
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

// newInvocationID names a gateway's call: "gw_" and 12 random hex digits.
func newInvocationID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "gw_" + hex.EncodeToString(b[:])
}
