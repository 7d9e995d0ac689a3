package session

// What a gateway's task layer needs of its parked calls: their state
// without waiting, and the client's withdrawal of one (MCP tasks/cancel).

// GatewayWithdrawn: the client withdrew its parked call before anyone
// decided (tasks/cancel): it never ran.
const GatewayWithdrawn = "withdrawn"

// withdrawnDecision is how the log names a client's withdrawal.
const withdrawnDecision = "withdrawn"

// GatewayPeek is what became of a gateway's call so far, without waiting:
// GatewayParked while it waits (or runs), else its final outcome, as
// GatewayAwait would return it; GatewayUnknown for an id no call of this
// session has.
func (s *Session) GatewayPeek(invocationID string) GatewayOutcome {
	s.mu.Lock()
	p, ok := s.gw.calls[invocationID]
	s.mu.Unlock()
	if !ok {
		return GatewayOutcome{ID: invocationID, Decision: GatewayUnknown}
	}
	select {
	case <-p.done:
		return p.out
	default:
		return p.awaiting(invocationID)
	}
}

// GatewayWithdraw withdraws a parked call on behalf of the client that
// made it: it never runs, and the log records the withdrawal (decision
// "withdrawn", by whom, why) as it records a person's decision. Like
// GatewayDecide, it fails with permissions.ErrAlreadyResolved once a
// person decided or the call expired.
func (s *Session) GatewayWithdraw(invocationID, by, reason string) error {
	return s.gatewayDecide(invocationID, withdrawnDecision, by, reason)
}

// withdraw settles a call its client withdrew: refused, never run.
func (s *Session) withdraw(c *toolCall, out GatewayOutcome, by, why string) GatewayOutcome {
	out.Decision, out.Reason = GatewayWithdrawn, withdrawal(why)
	s.deny(c, by, out.Reason, "cancelled: "+out.Reason)
	return out
}

// withdrawal is what a poller is told of a withdrawn call.
func withdrawal(why string) string {
	s := "withdrawn by its client before anyone decided: it never ran"
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}
