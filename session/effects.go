package session

import "fmt"

// A server's effect says what becomes of its call in doubt after a crash
// (the call had started; no result was logged): "at_most_once" (the
// default) waits for a person (/retry or /dismiss), "idempotent" runs
// again on its own when the resumed turn goes on — through the gate, as
// any call — once. "Once" is read from the log: only a call whose log
// shows a single start is run again, so a retry cut off by a second crash
// has two starts and waits for a person. The start that counts is the
// synced "allowed" that comes before any run, so no retry can run without
// its start on disk first.

// TypeCallRetried is the type of CallRetriedEvent.
const TypeCallRetried = "call_retried"

// CallRetriedEvent says a call in doubt runs again on its own after a
// resume: its server's effect is idempotent. It comes after the call's
// tool_call event, before the gate decides on it again.
type CallRetriedEvent struct {
	Header
	Turn   int    `json:"turn"`
	CallID string `json:"call_id"`
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

// Text is the event as one line for the person.
func (e *CallRetriedEvent) Text() string {
	return fmt.Sprintf("call %s (%s) was running when latch stopped: %s", e.CallID, e.Tool, e.Reason)
}

// retryReason is why a call of server runs again.
func retryReason(server string) string {
	return fmt.Sprintf("its server, %s, is idempotent: it runs again, once, through the gate "+
		"(cut off again, it waits for you)", server)
}

// takeRetries splits the calls in doubt of a resumed session: those of an
// idempotent server that started once are retried on their own (they are
// returned), the rest wait for a person (s.inDoubt).
func (s *Session) takeRetries(inDoubt []InDoubt) []InDoubt {
	var retry []InDoubt
	s.inDoubt = nil
	for _, d := range inDoubt {
		if d.Starts == 1 && s.idempotent[d.Server] {
			s.retrying[d.CallID] = d
			retry = append(retry, d)
			continue
		}
		s.inDoubt = append(s.inDoubt, d)
	}
	return retry
}

// retryRefused publishes that c, a call in doubt being retried, runs
// again; once, as it goes to the gate. It says why c cannot run again
// instead, or "": its tool is not there now, or belongs to another server
// than the one it started on (not the call that was declared idempotent).
func (s *Session) retryRefused(c *toolCall) string {
	s.mu.Lock()
	d, ok := s.retrying[c.id]
	delete(s.retrying, c.id)
	s.mu.Unlock()
	switch {
	case !ok:
		return ""
	case !c.known:
		return "outcome unknown: latch stopped while this call was running, and it could not run again: " + s.unknownTool(c.name)
	case c.tool.Server != d.Server:
		return fmt.Sprintf("outcome unknown: latch stopped while this call was running on server %s; %s is now server %s's, so it is not run again", d.Server, c.name, c.tool.Server)
	}
	c.retried = true
	s.publish(&CallRetriedEvent{Header: s.header(TypeCallRetried), Turn: c.turn, CallID: c.id, Server: d.Server,
		Tool: c.name, Reason: retryReason(d.Server)})
	return ""
}

// retryRefusedNote starts what the model is told of a retried call the
// gate refused: the first run may still have happened.
const retryRefusedNote = "outcome unknown: latch stopped while this call was running, and running it again was refused: "

// againNote is what Blocked adds for a call already run again after a
// crash, or held back from running again.
func (d InDoubt) againNote() string {
	switch {
	case d.Starts >= 2:
		return fmt.Sprintf(" (it had already been run again after a crash: %d starts, no result)", d.Starts)
	case d.Held != "":
		return " (not run again on its own: " + d.Held + ")"
	}
	return ""
}

// SettleRetries keeps for a person each call in doubt that was to run
// again on its own but cannot now: its server is not connected (or its
// tool is now another server's). Run again later, it would be refused as
// an unknown tool, and its outcome lost; so it waits, in doubt, with a
// notice saying why. Call it once the servers had their chance to connect
// (WaitServers); Continue calls it too.
func (s *Session) SettleRetries() {
	s.mu.Lock()
	var pending []InDoubt
	for _, c := range s.owed {
		if d, ok := s.retrying[c.ID]; ok {
			pending = append(pending, d)
		}
	}
	s.mu.Unlock()
	for _, d := range pending {
		var t Tool
		ok := false
		if s.servers != nil {
			t, ok = s.servers.Lookup(d.Tool)
		}
		switch {
		case ok && t.Server == d.Server:
			continue
		case ok:
			d.Held = fmt.Sprintf("it started on server %s; %s is now server %s's", d.Server, d.Tool, t.Server)
		default:
			d.Held = "its server, " + d.Server + ", is not connected"
		}
		s.mu.Lock()
		delete(s.retrying, d.CallID)
		s.inDoubt = append(s.inDoubt, d)
		s.mu.Unlock()
		s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
			"call %s (%s) is not run again on its own: %s; /retry %s runs it again through the gate, /dismiss %s tells the model",
			d.CallID, d.Tool, d.Held, d.CallID, d.CallID)})
	}
}
