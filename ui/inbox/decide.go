package inbox

import (
	"errors"
	"fmt"
	"time"

	"latch/session"
	"latch/ui/sanitize"
)

// decidedMsg says what became of n decisions sent: a line for each call
// not decided as asked, then the summary of them all (tally); and the
// calls approved as asked, whose results the inbox then watches for
// (watch.go).
type decidedMsg struct {
	n        int
	lines    []string
	approved []Call
}

// tally counts what became of the decisions of one step: decided as
// asked (ok), decided first by someone else (elsewhere: another inbox,
// latch approve), approved but refused by the gateway (a rule of the
// moment, a tool changed), and not decided for any other reason (failed:
// the gateway stopped, an error). A rejection's reason is said with it.
type tally struct {
	word, by, reason             string
	total                        int
	ok, elsewhere, refused, fail int
}

// summary is the one line that says what became of the whole step. A
// rejection says its reason, the one its clients are given, and no
// count of refusals: only an approved call can be refused.
func (t tally) summary() string {
	head := fmt.Sprintf("%s %d of %d %s, by %s", t.word, t.ok, t.total, plural(t.total, "call", "calls"), sanitize.Line(t.by))
	if t.word == "approved" {
		return fmt.Sprintf("%s: %d decided elsewhere first, %d refused, %d failed", head, t.elsewhere, t.refused, t.fail)
	}
	why := "with no reason given"
	if r := sanitize.Line(t.reason); r != "" {
		why = `reason "` + r + `"`
	}
	return fmt.Sprintf("%s, %s: %d decided elsewhere first, %d failed", head, why, t.elsewhere, t.fail)
}

// why kinds, for the tally.
const (
	whyFailed = iota
	whyElsewhere
	whyRefused
)

// send puts the decision on each call in its gateway's inbox, waits until
// the gateways have taken them, and reads what each logged: a call
// decided first by someone else (another inbox, latch approve) is said to
// be so, with who decided. find, when set, gives what was logged of a
// call (else each session's log is read whole). It returns a line for
// each call not decided as asked, then the step's summary, and the calls
// approved as asked.
func send(dir, by string, approve bool, reason string, calls []Call, find func(string, []string) ([]session.ParkedCall, error)) ([]string, []Call) {
	t := tally{word: "approved", by: by, reason: reason, total: len(calls)}
	if !approve {
		t.word = "rejected"
	}
	var lines []string
	not := func(c Call, kind int, why string) {
		switch kind {
		case whyElsewhere:
			t.elsewhere++
		case whyRefused:
			t.refused++
		default:
			t.fail++
		}
		lines = append(lines, notDecided(c, t.word, why))
	}
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
			not(c, whyFailed, "its gateway (session "+c.Session+") stopped: start it again to decide")
			continue
		}
		d := session.Decision{InvocationID: c.CallID, Approve: approve, By: by, Reason: reason}
		err := session.SendDecision(dir, c.Session, d)
		switch {
		case errors.Is(err, session.ErrDecisionQueued):
			not(c, whyElsewhere, "another decision on it is on its way (from another inbox, or latch approve)")
		case err != nil:
			not(c, whyFailed, err.Error())
		default:
			sent = append(sent, c)
		}
	}
	deadline := time.Now().Add(session.TakeWait)
	for _, c := range sent {
		session.AwaitTaken(dir, c.Session, c.CallID, deadline)
	}
	logged := loggedOf(dir, sent, find)
	var done []Call
	for _, c := range sent {
		kind, why := applied(dir, c, logged[c.Session], by, t.word)
		if why == "" {
			t.ok++
			if approve {
				done = append(done, c)
			}
			continue
		}
		not(c, kind, why)
	}
	return append(lines, t.summary()), done
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

// applied says why the decision sent on c was not applied as sent, and
// of what kind that is, or "" when it was. The log is read first: a
// gateway killed after it logged the decision and before it took the
// file away applied it all the same (started again, it finds the call
// decided and drops the file).
func applied(dir string, c Call, all []session.ParkedCall, by, word string) (int, string) {
	queued := session.DecisionQueued(dir, c.Session, c.CallID)
	for _, p := range all {
		if p.CallID != c.CallID || p.ApprovalID != c.ApprovalID {
			continue
		}
		switch {
		case p.Waiting() && queued:
			return whyFailed, session.NotTaken(dir, c.Session)
		case p.Waiting():
			return whyFailed, "its gateway took the decision but did not apply it (see its log)"
		case p.Decision == "approved" || p.Decision == "rejected":
			if p.By != by || p.Decision != word {
				return whyElsewhere, "it was already " + outcome(p)
			}
		default:
			return whyFailed, "it was already " + outcome(p) // expired, withdrawn by its client
		}
		if p.Refused != "" {
			return whyRefused, "approved, but the gateway refused it: " + p.Refused
		}
		return whyFailed, ""
	}
	if queued {
		return whyFailed, session.NotTaken(dir, c.Session)
	}
	return whyFailed, "it is no longer in its session log"
}

// notDecided is the line of a call not decided as asked.
func notDecided(c Call, word, why string) string {
	return sanitize.Line(fmt.Sprintf("%s (%s): not %s: %s", c.CallID, c.Tool, word, why))
}

// outcome says what became of a decided call, and who decided.
func outcome(p session.ParkedCall) string { return p.Outcome() }
