package session

import (
	"fmt"

	"latch/mcp"
	"latch/permissions"
)

// GatewayInDoubt: latch stopped while the approved call ran; whether it
// took effect is unknown, and it is not run again by itself.
const GatewayInDoubt = "in_doubt"

// ResumeGateway takes up the calls an earlier run of this gateway parked
// in the session's log (the session was opened with the same id, its
// servers connected): those still waiting wait again, with their
// invocation ids and expiry; one approved but not started runs now
// (once); the outcome of the others is read back from the log, for their
// pollers. It returns how many calls it took up.
func (s *Session) ResumeGateway() (int, error) {
	if s.logDir == "" {
		return 0, nil
	}
	calls, err := ParkedCallsOf(s.logDir, s.id)
	if err != nil {
		return 0, fmt.Errorf("reading the parked calls of session %s: %w", s.id, err)
	}
	var resolved []string
	for _, p := range calls {
		if !p.Waiting() {
			resolved = append(resolved, p.ApprovalID)
		}
	}
	s.approvals.RestoreResolved(resolved)
	n := 0
	for _, p := range calls {
		if p.Client == "" {
			continue
		}
		n++
		c := s.parkedCall(p)
		gp := &gatewayParked{approvalID: p.ApprovalID, expires: p.Expires, done: make(chan struct{})}
		if gp.expires.IsZero() {
			gp.expires = p.Parked.Add(DefaultApprovalTTL)
		}
		out := GatewayOutcome{ID: p.CallID, Expires: gp.expires}
		switch {
		case p.Waiting():
			// It waits again as it waited before: data, with the
			// session's one expiry timer.
			gp.call = c
			s.mu.Lock()
			s.approvals.Restore([]permissions.Approval{{ID: p.ApprovalID, CallID: p.CallID, Server: p.Server,
				Tool: c.tool.Original, Name: p.Tool, Arguments: p.Arguments, Created: p.Parked}})
			s.parked[p.ApprovalID] = s.gatewayDecision(gp)
			s.addGatewayCall(p.CallID, gp)
			s.mu.Unlock()
			continue
		case p.Decision == "approved" && p.Refused != "":
			// Refused after the approval (a rule of the moment, a changed
			// tool): final, whatever the rules say now.
			out.Decision, out.Reason = GatewayDenied, p.Refused
		case p.Decision == "approved" && !p.Started:
			// The decision is on disk, the call never started: it runs
			// now, as it would have.
			s.mu.Lock()
			s.addGatewayCall(p.CallID, gp)
			s.mu.Unlock()
			if s.refuseByRules(c, &out) {
				gp.finish(out)
				continue
			}
			go func() { gp.finish(s.settle(c, out, true, p.By, p.Reason)) }()
			continue
		case p.Decision == "approved" && !p.Ran:
			out.Decision = GatewayInDoubt
			out.Reason = "latch stopped while this call ran: whether it took effect is unknown, and it is not run again"
		case p.Decision == "approved":
			out.Decision = GatewayAllowed
			if p.Result.Error != "" {
				out.Error = p.Result.Error
			} else {
				out.Result = loggedCallResult(p.Result)
			}
		case p.Decision == "expired":
			out.Decision = GatewayExpired
		case p.Decision == withdrawnDecision:
			out.Decision, out.Reason = GatewayWithdrawn, withdrawal(p.Reason)
		default:
			out.Decision, out.Reason = GatewayDenied, rejection(p.Reason)
		}
		gp.finish(out)
		s.mu.Lock()
		s.addGatewayCall(p.CallID, gp)
		s.mu.Unlock()
	}
	return n, nil
}

// parkedCall is a call parked before a restart, on its way through the
// gate again: the tool as it is now, with the digest it had when the call
// parked, so that an approval does not cover a tool changed since.
func (s *Session) parkedCall(p ParkedCall) *toolCall {
	c := &toolCall{id: p.CallID, name: p.Tool, args: p.Arguments}
	if c.args == nil {
		c.args = map[string]any{}
	}
	if s.servers != nil {
		c.tool, c.known = s.servers.Lookup(c.name)
	}
	if !c.known {
		c.tool = mcp.Tool{Name: p.Tool, Server: p.Server}
	}
	c.tool.Digest, c.tool.Description = p.Digest, p.Description
	c.perm = s.gateCall(c.tool, c.args)
	c.perm.Client = p.Caller
	return c
}
