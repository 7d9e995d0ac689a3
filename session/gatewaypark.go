package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"latch/permissions"
)

// DefaultApprovalTTL is how long a gateway's parked call waits for a
// person when GatewayCall.TTL is not set.
const DefaultApprovalTTL = 24 * time.Hour

// ErrUnknownInvocation: no call of this gateway has that invocation id.
var ErrUnknownInvocation = errors.New("no such call")

// gatewayParked is a gateway's call that waits for a person, and then
// what became of it. While it waits it is only data: no goroutine and no
// timer of its own (see gatewayCalls); a decision sets it going, the
// expiry sweep ends it. out is final once done is closed.
type gatewayParked struct {
	call       *toolCall // what runs once approved; nil once settled
	approvalID string
	expires    time.Time
	done       chan struct{}
	out        GatewayOutcome
	// release gives back the call's share of its client's quota of
	// waiting calls (GatewayCall.Admit) once it no longer waits; nil
	// once given back.
	release func()
}

// unpark gives back p's share of its client's quota: it no longer waits.
// The caller holds s.mu.
func (p *gatewayParked) unpark() {
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

// parks says whether the gate's verdict puts the call to a person, whom
// the gateway parks it for: ask mode or an ask rule (denied now only
// because no one is at a prompt), approve mode, and with parkUnlisted an
// unlisted tool in read_only. A deny rule's refusal is final: never parked.
func parks(v permissions.Verdict, parkUnlisted bool) bool {
	switch {
	case v.Decision == permissions.Allow:
		return false
	case v.Decision == permissions.Park, v.Decision == permissions.AskUser, v.NoOneToAsk:
		return true
	case v.Rule != "":
		return false
	}
	return parkUnlisted && v.Decision == permissions.Deny && v.Mode == permissions.ReadOnly
}

// GatewayParks says whether a call of the named tool would park rather
// than run or be refused, as the gate stands now (its result need not
// match the tool's output schema).
func (s *Session) GatewayParks(name string, parkUnlisted bool) bool {
	if s.servers == nil {
		return false
	}
	t, ok := s.servers.Lookup(name)
	if !ok {
		return false
	}
	c := permissions.Call{Server: t.Server, Tool: t.Original, Name: t.Name, Digest: t.Digest}
	return parks(s.gate.Decide(c), parkUnlisted) || s.gate.MayAsk(c) // an ask rule parks some calls

}

// gatewayPark parks a gateway's call as the chat's approve mode parks one
// (approval_parked, on disk before the client hears of it) and returns at
// once. Nothing waits for it: a decision settles it (gatewayDecision),
// the session's one expiry timer expires it.
func (s *Session) gatewayPark(c *toolCall, client, reason string, ttl time.Duration, release func()) GatewayOutcome {
	if ttl <= 0 {
		ttl = DefaultApprovalTTL
	}
	p := &gatewayParked{call: c, expires: time.Now().Add(ttl).UTC(), done: make(chan struct{}), release: release}
	s.mu.Lock()
	p.approvalID = s.parkLocked(c, s.gatewayDecision(p))
	s.addGatewayCall(c.id, p)
	s.mu.Unlock()
	s.permission(c, "parked", "policy", reason)
	s.publish(&ApprovalParkedEvent{Header: s.header(TypeApprovalParked), ApprovalID: p.approvalID,
		CallID: c.id, Server: c.tool.Server, Tool: c.name, Arguments: c.args, Digest: c.tool.Digest,
		Description: c.tool.Description, Client: client, Expires: p.expires.Format(time.RFC3339Nano),
		ClientName: c.perm.Client.Name, ClientVerified: c.perm.Client.Verified})
	return p.awaiting(c.id)
}

// awaiting is the outcome of a call still waiting.
func (p *gatewayParked) awaiting(id string) GatewayOutcome {
	return GatewayOutcome{ID: id, Decision: GatewayParked, Expires: p.expires}
}

// finish makes out the call's final outcome, for every poller.
func (p *gatewayParked) finish(out GatewayOutcome) {
	p.out, p.call = out, nil
	close(p.done)
}

// gatewayDecision is what a person's decision on the parked gateway call
// p does, whoever took it out of the waiting calls (GatewayDecide, the
// inbox, the chat's Decide): the decision is logged (before the call
// runs, and before the decider is told: it reads the log to learn whose
// decision applied), then the call is refused or runs once, on a
// goroutine of its own while it runs. An approval a deny rule of the
// moment refuses (recheck.go) is refused at once, also before the decider
// is told.
func (s *Session) gatewayDecision(p *gatewayParked) onDecision {
	return func(approve bool, by, why string) {
		c := p.call
		s.publishDecision(p.approvalID, c.id, decisionName(approve), by, why)
		s.gate.RecordDecision(c.id, approve)
		s.mu.Lock()
		p.unpark()
		closing := s.closing
		s.mu.Unlock()
		if closing {
			// latch is stopping: the decision is on disk, and the next
			// run carries it out (an approved call that never started
			// runs then, if the rules of that moment let it).
			return
		}
		out := GatewayOutcome{ID: c.id, Expires: p.expires}
		if approve && s.refuseByRules(c, &out) {
			// Refused before the decider is told (it reads the log).
			p.finish(out)
			return
		}
		go func() { p.finish(s.settle(c, out, approve, by, why)) }()
	}
}

// settle carries out a person's decision on a parked gateway call: the
// call is refused, or runs (once).
func (s *Session) settle(c *toolCall, out GatewayOutcome, approved bool, by, why string) GatewayOutcome {
	if !approved {
		// The client is told why, not who: the log names the person.
		out.Decision, out.Reason = GatewayDenied, rejection(why)
		s.deny(c, by, out.Reason, "denied: "+out.Reason)
		return out
	}
	if change, changed := s.changedWhileParked(c); changed {
		out.Decision = GatewayDenied
		out.Reason = "not run: " + c.name + " changed while the call waited for approval (" + change + "); call it again"
		s.deny(c, "policy", out.Reason, out.Reason)
		return out
	}
	s.permission(c, "allowed", by, "approved")
	out.Decision = GatewayAllowed
	out.Result, out.Error = s.invoke(context.Background(), c)
	return out
}

// GatewayDecide approves or rejects a gateway's parked call by its
// invocation id, saying who decided (logged with the decision) and why.
// The first decision wins: a later one, or one after the call expired,
// fails with permissions.ErrAlreadyResolved. The decision is logged
// before GatewayDecide returns.
func (s *Session) GatewayDecide(invocationID string, approve bool, by, reason string) error {
	return s.gatewayDecide(invocationID, decisionName(approve), by, reason)
}

// gatewayDecide applies a decision ("approved", "rejected" or
// withdrawnDecision) on a parked gateway call: the first wins.
func (s *Session) gatewayDecide(invocationID, decision, by, reason string) error {
	s.mu.Lock()
	p, ok := s.gw.calls[invocationID]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("%s: %w", invocationID, ErrUnknownInvocation)
	}
	decided, waiting := s.takeParked(p.approvalID)
	s.mu.Unlock()
	if !waiting {
		return fmt.Errorf("%s: %w", invocationID, permissions.ErrAlreadyResolved)
	}
	if decision == withdrawnDecision {
		s.mu.Lock()
		p.unpark()
		s.mu.Unlock()
		c := p.call
		s.publishDecision(p.approvalID, c.id, withdrawnDecision, by, reason)
		s.gate.RecordDecision(c.id, false)
		p.finish(s.withdraw(c, GatewayOutcome{ID: c.id, Expires: p.expires}, by, reason))
		return nil
	}
	decided(decision == "approved", by, reason)
	return nil
}

// rejection is what a client is told of a rejection.
func rejection(why string) string {
	if why == "" {
		return "rejected by a person"
	}
	return "rejected by a person: " + why
}

// decisionName is how the log names a person's decision.
func decisionName(approved bool) string {
	if approved {
		return "approved"
	}
	return "rejected"
}

// GatewayAwait waits up to poll for what became of a parked gateway call:
// GatewayParked while it still waits, then GatewayAllowed (its result,
// the same to every later poll: the call runs once), GatewayDenied or
// GatewayExpired. An id no call of this session has is GatewayUnknown.
func (s *Session) GatewayAwait(ctx context.Context, invocationID string, poll time.Duration) GatewayOutcome {
	s.mu.Lock()
	p, ok := s.gw.calls[invocationID]
	s.mu.Unlock()
	if !ok {
		return GatewayOutcome{ID: invocationID, Decision: GatewayUnknown}
	}
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-p.done:
		return p.out
	case <-t.C:
	case <-ctx.Done():
	}
	return p.awaiting(invocationID)
}
