package inbox

import (
	"errors"
	"fmt"
	"time"

	"latch/session"
	"latch/ui/sanitize"
)

// decidedMsg says what became of n decisions sent: a line of the count
// decided, then a line for each call not decided as asked.
type decidedMsg struct {
	n     int
	lines []string
}

// send puts the decision on each call in its gateway's inbox, waits until
// the gateways have taken them, and reads what each logged: a call
// decided first by someone else (another inbox, latch approve) is said to
// be so, with who decided. find, when set, gives what was logged of a
// call (else each session's log is read whole).
func send(dir, by string, approve bool, reason string, calls []Call, find func(string, []string) ([]session.ParkedCall, error)) []string {
	word := "approved"
	if !approve {
		word = "rejected"
	}
	var lines []string
	var sent []Call
	running := map[string]bool{}
	for _, c := range calls {
		up, known := running[c.Session]
		if !known {
			up = session.Running(dir, c.Session)
			running[c.Session] = up
		}
		if !up {
			// As latch approve: a decision is not left for a gateway
			// that may start again much later.
			lines = append(lines, notDecided(c, word, "its gateway (session "+c.Session+") stopped: start it again to decide"))
			continue
		}
		d := session.Decision{InvocationID: c.CallID, Approve: approve, By: by, Reason: reason}
		err := session.SendDecision(dir, c.Session, d)
		switch {
		case errors.Is(err, session.ErrDecisionQueued):
			lines = append(lines, notDecided(c, word, "another decision on it is on its way (from another inbox, or latch approve)"))
		case err != nil:
			lines = append(lines, notDecided(c, word, err.Error()))
		default:
			sent = append(sent, c)
		}
	}
	deadline := time.Now().Add(session.TakeWait)
	for _, c := range sent {
		session.AwaitTaken(dir, c.Session, c.CallID, deadline)
	}
	logged := loggedOf(dir, sent, find)
	ok := 0
	for _, c := range sent {
		all := logged[c.Session]
		why := applied(dir, c, all, by, word)
		if why == "" {
			ok++
			continue
		}
		lines = append(lines, notDecided(c, word, why))
	}
	head := fmt.Sprintf("%s %d of %d %s, by %s", word, ok, len(calls), plural(len(calls), "call", "calls"), sanitize.Line(by))
	return append([]string{head}, lines...)
}

// loggedOf reads, once for each session, what its log says of the calls
// sent: through find when set, else the session's log whole.
func loggedOf(dir string, sent []Call, find func(string, []string) ([]session.ParkedCall, error)) map[string][]session.ParkedCall {
	ids := map[string][]string{}
	for _, c := range sent {
		ids[c.Session] = append(ids[c.Session], c.CallID)
	}
	logged := map[string][]session.ParkedCall{}
	for sess, of := range ids {
		if find != nil {
			logged[sess], _ = find(sess, of)
		} else {
			logged[sess], _ = session.ParkedCallsOf(dir, sess)
		}
	}
	return logged
}

// applied says why the decision sent on c was not applied as sent, or ""
// when it was. The log is read first: a gateway killed after it logged
// the decision and before it took the file away applied it all the same
// (started again, it finds the call decided and drops the file).
func applied(dir string, c Call, all []session.ParkedCall, by, word string) string {
	queued := session.DecisionQueued(dir, c.Session, c.CallID)
	for _, p := range all {
		if p.CallID != c.CallID || p.ApprovalID != c.ApprovalID {
			continue
		}
		switch {
		case p.Waiting() && queued:
			return session.NotTaken(dir, c.Session)
		case p.Waiting():
			return "its gateway took the decision but did not apply it (see its log)"
		case p.By != by || p.Decision != word:
			return "it was already " + outcome(p)
		case p.Refused != "":
			return "approved, but the gateway refused it: " + p.Refused
		}
		return ""
	}
	if queued {
		return session.NotTaken(dir, c.Session)
	}
	return "it is no longer in its session log"
}

// notDecided is the line of a call not decided as asked.
func notDecided(c Call, word, why string) string {
	return sanitize.Line(fmt.Sprintf("%s (%s): not %s: %s", c.CallID, c.Tool, word, why))
}

// outcome says what became of a decided call, and who decided.
func outcome(p session.ParkedCall) string { return p.Outcome() }
