package session

import (
	"container/heap"
	"time"
)

// gatewayCalls is every call a gateway parked in this run, by invocation
// id (with what became of it, for its pollers), and the expiry of those
// still waiting: one queue, earliest first, and one timer set to the
// earliest. A parked call thus costs its data, whatever the number.
// Guarded by Session.mu.
type gatewayCalls struct {
	calls map[string]*gatewayParked
	queue expiryQueue
	timer *time.Timer // fires at queue[0]'s expiry; nil until the first call
}

// addGatewayCall registers a gateway's parked call; one still waiting
// (call set) joins the expiry queue. The caller holds s.mu.
func (s *Session) addGatewayCall(invocationID string, p *gatewayParked) {
	if s.gw.calls == nil {
		s.gw.calls = map[string]*gatewayParked{}
	}
	s.gw.calls[invocationID] = p
	if p.call == nil {
		return
	}
	heap.Push(&s.gw.queue, p)
	if s.gw.queue[0] == p {
		s.armExpiry(time.Now())
	}
}

// armExpiry sets the timer to the earliest expiry in the queue. The caller
// holds s.mu.
func (s *Session) armExpiry(now time.Time) {
	switch {
	case len(s.gw.queue) == 0:
		if s.gw.timer != nil {
			s.gw.timer.Stop()
		}
	case s.gw.timer == nil:
		s.gw.timer = time.AfterFunc(s.gw.queue[0].expires.Sub(now), s.expireDue)
	default:
		s.gw.timer.Reset(s.gw.queue[0].expires.Sub(now))
	}
}

// expireDue expires the waiting calls whose time is up (a call decided
// meanwhile is only dropped from the queue), and sets the timer for the
// next. While latch stops, nothing expires: the calls stay parked in the
// log for the next run.
func (s *Session) expireDue() {
	now := time.Now()
	var due []*gatewayParked
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	for len(s.gw.queue) > 0 && !s.gw.queue[0].expires.After(now) {
		p := heap.Pop(&s.gw.queue).(*gatewayParked)
		if _, waiting := s.takeParked(p.approvalID); waiting {
			p.unpark()
			due = append(due, p)
		}
	}
	s.armExpiry(now)
	s.mu.Unlock()
	for _, p := range due {
		c, at := p.call, p.expires.Format(time.RFC3339)
		s.publishDecision(p.approvalID, c.id, "expired", "policy", "no decision before "+at)
		s.fail(c, "expired: no one decided before "+at)
		p.finish(GatewayOutcome{ID: c.id, Decision: GatewayExpired, Expires: p.expires})
	}
}

// stopExpiry stops the expiry timer (latch is stopping). The caller holds
// s.mu.
func (s *Session) stopExpiry() {
	if s.gw.timer != nil {
		s.gw.timer.Stop()
	}
}

// expiryQueue is a min-heap of parked calls by expiry (container/heap).
type expiryQueue []*gatewayParked

func (q expiryQueue) Len() int           { return len(q) }
func (q expiryQueue) Less(i, j int) bool { return q[i].expires.Before(q[j].expires) }
func (q expiryQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }

// Push adds x (a *gatewayParked); for container/heap.
func (q *expiryQueue) Push(x any) { *q = append(*q, x.(*gatewayParked)) }

// Pop removes the last element; for container/heap.
func (q *expiryQueue) Pop() any {
	old := *q
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return p
}
