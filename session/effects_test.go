package session_test

import (
	"slices"
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// These tests resume a log cut as a crash while a put ran leaves it (its
// start logged, no result), with the box server's effect idempotent or
// not. The box's puts are the witness of how many times the call ran.

// putInDoubt runs a session whose model puts a pen in the box (approved
// by a person first in approve mode), then cuts its log before the
// put's last result: the put ran, the log says only that it started.
func putInDoubt(t *testing.T, dir string, box *logBox, mode permissions.Mode) string {
	t.Helper()
	ol := newServer(t, logModel)
	ol.Script(logCallsTurn(logCall("call_pen", "box__put", "thing", "pen")), ollamatest.TextTurn("Done."))
	s := session.New(logOptions(ol, dir, box, mode))
	r := startLogged(t, s)
	send(t, s, "put a pen in the box")
	if mode == permissions.Approve {
		evs := r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
		if err := s.Decide(one[*session.ApprovalParkedEvent](t, evs).ApprovalID, true); err != nil {
			t.Fatal(err)
		}
	}
	finishedWith(t, r.turn(), session.ReasonStop)
	s.Close()
	cutAtLastResult(t, dir, s.ID())
	return s.ID()
}

// cutAtLastResult cuts session id's log before its last tool_result, as a
// kill -9 while that call ran leaves it.
func cutAtLastResult(t *testing.T, dir, id string) {
	t.Helper()
	lines := logLines(t, logFile(dir, id))
	cut := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], `"type":"tool_result"`) {
			cut = i
			break
		}
	}
	if cut < 0 {
		t.Fatal("no tool_result in the log")
	}
	writeLines(t, logFile(dir, id), lines[:cut])
}

// idempotent are options of a session whose box server is idempotent.
func idempotent(o session.Options) session.Options {
	o.Idempotent = []string{"box"}
	return o
}

// TestIdempotentCallInDoubtRunsAgainOnce: resumed, the put in doubt of an
// idempotent server runs again on its own, once, saying so (an event, its
// reason naming the server), and the model gets its result; an
// at_most_once server's waits for a person and nothing runs.
func TestIdempotentCallInDoubtRunsAgainOnce(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	id := putInDoubt(t, dir, box, permissions.Auto)

	// at_most_once (the default): in doubt, blocked, not run.
	ol := newServer(t, logModel)
	s, res := resume(t, logOptions(ol, dir, box, permissions.Auto), dir, id)
	if len(res.InDoubt) != 1 || len(res.Retrying) != 0 || s.Blocked() == "" || s.Continue() {
		t.Fatalf("at_most_once: in doubt %+v, retrying %+v, blocked %q; want the call in doubt, blocking the turn", res.InDoubt, res.Retrying, s.Blocked())
	}
	s.Close()
	if w := box.written(); !slices.Equal(w, []string{"pen"}) {
		t.Fatalf("puts %v after resuming an at_most_once server, want the one before the crash", w)
	}

	// idempotent: run again, once.
	ol = newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The pen is in."))
	s, res = resume(t, idempotent(logOptions(ol, dir, box, permissions.Auto)), dir, id)
	if len(res.InDoubt) != 0 || len(res.Retrying) != 1 || res.Retrying[0].CallID != "call_pen" || s.Blocked() != "" {
		t.Fatalf("idempotent: in doubt %+v, retrying %+v, blocked %q; want the call retried", res.InDoubt, res.Retrying, s.Blocked())
	}
	r := startLogged(t, s)
	if !s.Continue() {
		t.Fatal("the resumed turn did not go on")
	}
	evs := r.turn()
	finishedWith(t, evs, session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"pen", "pen"}) {
		t.Errorf("puts %v, want the pen put once more", w)
	}
	rt := one[*session.CallRetriedEvent](t, evs)
	if rt.CallID != "call_pen" || rt.Server != "box" || !strings.Contains(rt.Reason, "idempotent") || !strings.Contains(rt.Text(), "once") {
		t.Errorf("call_retried event %+v (%q)", rt, rt.Text())
	}
	if res := one[*session.ToolResultEvent](t, evs); !res.OK || !strings.Contains(res.Content, "put pen") {
		t.Errorf("the retried put's result: %+v", res)
	}
	s.Close()

	// Done: a later resume owes nothing and runs nothing.
	s, res = resume(t, idempotent(logOptions(newServer(t, logModel), dir, box, permissions.Auto)), dir, id)
	if len(res.InDoubt)+len(res.Retrying) != 0 || s.Continue() {
		t.Errorf("after the retry: in doubt %+v, retrying %+v", res.InDoubt, res.Retrying)
	}
	if w := box.written(); len(w) != 2 {
		t.Errorf("puts %v after resuming the finished session, want 2", w)
	}
}

// TestRetryCutOffAgainWaitsForAPerson: a retry itself cut off by a second
// crash is never retried again: the log shows two starts, and the call
// waits for a person, saying it had been run again.
func TestRetryCutOffAgainWaitsForAPerson(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	id := putInDoubt(t, dir, box, permissions.Auto)

	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The pen is in."))
	s, _ := resume(t, idempotent(logOptions(ol, dir, box, permissions.Auto)), dir, id)
	r := startLogged(t, s)
	s.Continue()
	finishedWith(t, r.turn(), session.ReasonStop)
	s.Close()
	cutAtLastResult(t, dir, id) // the second crash, during the retry

	for range 2 {
		s, res := resume(t, idempotent(logOptions(newServer(t, logModel), dir, box, permissions.Auto)), dir, id)
		if len(res.Retrying) != 0 || len(res.InDoubt) != 1 || res.InDoubt[0].Starts != 2 {
			t.Fatalf("after a retry cut off: in doubt %+v, retrying %+v; want it in doubt with 2 starts", res.InDoubt, res.Retrying)
		}
		if b := s.Blocked(); !strings.Contains(b, "/retry call_pen") || !strings.Contains(b, "already been run again") {
			t.Errorf("blocked %q: want it waiting for a person, saying it was run again", b)
		}
		if s.Continue() {
			t.Error("the turn went on with the call in doubt")
		}
		s.Close()
	}
	if w := box.written(); !slices.Equal(w, []string{"pen", "pen"}) {
		t.Errorf("puts %v, want two: the first run and its one retry", w)
	}
}

// TestRetriedCallGoesThroughTheGate: the retry is decided afresh. A deny
// rule added since refuses it, naming the rule; and a person's approval
// before the crash covered the run it started, not the retry: in approve
// mode the retry waits for approval again.
func TestRetriedCallGoesThroughTheGate(t *testing.T) {
	t.Parallel()
	t.Run("a deny rule since", func(t *testing.T) {
		box := newLogBox()
		dir := t.TempDir()
		id := putInDoubt(t, dir, box, permissions.Auto)
		deny, err := permissions.FlagRule("--deny", "box__put(thing=pen)", "")
		if err != nil {
			t.Fatal(err)
		}
		ol := newServer(t, logModel)
		ol.Script(ollamatest.TextTurn("It was refused."))
		o := idempotent(logOptions(ol, dir, box, permissions.Auto))
		o.Policy.Rules = []permissions.Rule{deny}
		s, _ := resume(t, o, dir, id)
		r := startLogged(t, s)
		s.Continue()
		evs := r.turn()
		one[*session.CallRetriedEvent](t, evs)
		p := one[*session.PermissionEvent](t, evs)
		if p.Decision != "denied" || p.Rule != `--deny "box__put(thing=pen)"` {
			t.Errorf("the retry's permission: %+v, want denied by the rule", p)
		}
		if w := box.written(); len(w) != 1 {
			t.Errorf("puts %v, want only the one before the crash", w)
		}
		if res := one[*session.ToolResultEvent](t, evs); !strings.HasPrefix(res.Error, "outcome unknown: ") || !strings.Contains(res.Error, "denied") {
			t.Errorf("the model is told %q of the refused retry, want that the outcome is unknown and the retry denied", res.Error)
		}
	})
	t.Run("approved before the crash", func(t *testing.T) {
		box := newLogBox()
		dir := t.TempDir()
		id := putInDoubt(t, dir, box, permissions.Approve)
		s, _ := resume(t, idempotent(logOptions(newServer(t, logModel), dir, box, permissions.Approve)), dir, id)
		r := startLogged(t, s)
		s.Continue()
		evs := r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
		one[*session.CallRetriedEvent](t, evs)
		if p := of[*session.PermissionEvent](evs); len(p) != 1 || p[0].Decision != "parked" {
			t.Errorf("the retry's permission events: %+v, want it parked for a person", p)
		}
		if w := box.written(); len(w) != 1 {
			t.Errorf("puts %v, want only the one before the crash", w)
		}
	})
}

// TestRetryParkedThenClosedIsItsApproval: a retry that parked (approve
// mode) when latch stopped is the pending approval's on the next resume,
// not in doubt nor retried again: approving it runs the put once more.
func TestRetryParkedThenClosedIsItsApproval(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	id := putInDoubt(t, dir, box, permissions.Approve)
	s, _ := resume(t, idempotent(logOptions(newServer(t, logModel), dir, box, permissions.Approve)), dir, id)
	r := startLogged(t, s)
	s.Continue()
	r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
	s.Close()

	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The pen is in."))
	s, res := resume(t, idempotent(logOptions(ol, dir, box, permissions.Approve)), dir, id)
	if len(res.InDoubt)+len(res.Retrying) != 0 || len(res.Pending) != 1 || !strings.Contains(s.Blocked(), "waits for approval") {
		t.Fatalf("in doubt %+v, retrying %+v, pending %+v, blocked %q; want the retry's approval pending", res.InDoubt, res.Retrying, res.Pending, s.Blocked())
	}
	r = startLogged(t, s)
	if err := s.Decide(res.Pending[0].ID, true); err != nil {
		t.Fatal(err)
	}
	evs := r.turn()
	finishedWith(t, evs, session.ReasonStop)
	if len(of[*session.CallRetriedEvent](evs)) != 0 {
		t.Error("the approved retry was announced again")
	}
	if w := box.written(); !slices.Equal(w, []string{"pen", "pen"}) {
		t.Errorf("puts %v, want the pen put once more", w)
	}
}

// TestRetryWaitsWhileItsServerIsDown: resumed without its server, the
// idempotent server's call in doubt is not spent on an "unknown tool": it
// waits for a person, saying why; resumed with the server, it runs again.
func TestRetryWaitsWhileItsServerIsDown(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	id := putInDoubt(t, dir, box, permissions.Auto)

	s, res := resume(t, idempotent(logOptions(newServer(t, logModel), dir, nil, permissions.Auto)), dir, id)
	if len(res.Retrying) != 1 {
		t.Fatalf("retrying %+v, want the put", res.Retrying)
	}
	r := startLogged(t, s)
	if s.Continue() {
		t.Fatal("the turn went on without the put's server")
	}
	n := r.until(func(e session.Event) bool { _, ok := e.(*session.Notice); return ok })
	if text := n[len(n)-1].(*session.Notice).Text; !strings.Contains(text, "box, is not connected") || !strings.Contains(text, "/retry call_pen") {
		t.Errorf("notice %q, want why the put is not run again and what to do", text)
	}
	if b := s.Blocked(); !strings.Contains(b, "box, is not connected") || len(s.InDoubtCalls()) != 1 {
		t.Errorf("blocked %q, in doubt %+v; want the put waiting for a person", b, s.InDoubtCalls())
	}
	s.Close()
	if evs := logLines(t, logFile(dir, id)); strings.Contains(strings.Join(evs, "\n"), `"tool_result"`) {
		t.Error("the put in doubt got a result while its server was down")
	}

	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The pen is in."))
	s, _ = resume(t, idempotent(logOptions(ol, dir, box, permissions.Auto)), dir, id)
	r = startLogged(t, s)
	if !s.Continue() {
		t.Fatalf("with its server up the put did not run again: %q", s.Blocked())
	}
	finishedWith(t, r.turn(), session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"pen", "pen"}) {
		t.Errorf("puts %v, want the pen put once more", w)
	}
}
