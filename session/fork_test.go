package session_test

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// fork forks session id of dir with o (its model: the logged one) and
// closes the fork when the test ends.
func fork(t *testing.T, o session.Options, dir, id string) (*session.Session, *session.Resumed) {
	t.Helper()
	o.Model = ""
	s, res, err := session.Fork(o, dir, id)
	if err != nil {
		t.Fatalf("Fork(%s): %v", id, err)
	}
	t.Cleanup(s.Close)
	return s, res
}

// A fork of a session whose last call waits for approval carries the
// conversation, names its parent, and leaves the parked call where it
// is: the fork has nothing to decide, the model is told the call did not
// run, and the parent, unchanged, still runs it once when approved.
func TestForkLeavesTheParkedCallInTheParent(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir, id, ap := park(t, box, "hat", true)
	before, err := os.ReadFile(logFile(dir, id))
	if err != nil {
		t.Fatal(err)
	}

	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("Then nothing goes into the box."))
	f, res := fork(t, logOptions(ol, dir, box, permissions.Approve), dir, id)
	if f.ID() == id {
		t.Fatalf("the fork has its parent's id %s", id)
	}
	if len(res.Pending)+len(res.InDoubt) != 0 || len(f.Approvals()) != 0 || f.Blocked() != "" {
		t.Fatalf("the fork took up the parent's calls: pending %+v, in doubt %+v, approvals %+v, blocked %q",
			res.Pending, res.InDoubt, f.Approvals(), f.Blocked())
	}
	if err := f.Decide(ap, true); err == nil {
		t.Fatalf("the fork decided the parent's approval %s", ap)
	}
	evs, _, err := session.LoadLog(logFile(dir, f.ID()))
	if err != nil {
		t.Fatal(err)
	}
	st, ok := evs[0].(*session.SessionStarted)
	if !ok || st.Fork == nil || st.Fork.Parent != id || st.Fork.Turn != 1 || st.Fork.Events == 0 {
		t.Fatalf("the fork's log begins with %+v, want session_started naming parent %s at turn 1", evs[0], id)
	}
	for _, e := range evs {
		if _, ok := e.(*session.ApprovalParkedEvent); ok {
			t.Errorf("the parked call was copied into the fork's log: %+v", e)
		}
		if e.Head().SessionID != f.ID() {
			t.Errorf("%s in the fork's log has session_id %s", e.Head().Type, e.Head().SessionID)
		}
	}
	sums, _ := session.List(dir)
	for _, x := range sums {
		if x.ID == f.ID() && (x.Parent != id || len(x.Pending) != 0 || x.FirstPrompt != "put a hat in the box") {
			t.Errorf("latch sessions sees the fork as %+v, want parent %s, nothing pending", x, id)
		}
	}

	r := startLogged(t, f)
	send(t, f, "never mind")
	finishedWith(t, r.turn(), session.ReasonStop)
	reqs := ol.Requests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages {
		sent = append(sent, m.Role+":"+m.Content)
	}
	want := []string{"user:put a hat in the box", "assistant:", "tool:", "user:never mind"}
	if len(sent) != len(want) {
		t.Fatalf("the fork sent %q, want the carried history then the new prompt", sent)
	}
	for i := range want {
		if !strings.HasPrefix(sent[i], want[i]) {
			t.Errorf("message %d sent %q, want %q…", i, sent[i], want[i])
		}
	}
	if !strings.Contains(sent[2], "not run") || !strings.Contains(sent[2], id) {
		t.Errorf("the model was told %q of the parked call, want that it did not run", sent[2])
	}
	if w := box.written(); len(w) != 0 {
		t.Fatalf("the parked put ran in the fork: %v", w)
	}
	history := f.History()
	f.Close()

	after, err := os.ReadFile(logFile(dir, id))
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the parent's log changed by the fork (%v)", err)
	}
	// The fork resumes as it was left.
	f2, res2 := resume(t, logOptions(newServer(t, logModel), dir, box, permissions.Approve), dir, f.ID())
	if len(res2.Pending)+len(res2.InDoubt) != 0 || !slices.EqualFunc(f2.History(), history, sameMessage) {
		t.Errorf("resumed fork: pending %+v, in doubt %+v, history %+v, want %+v", res2.Pending, res2.InDoubt, f2.History(), history)
	}
	f2.Close()
	// The parent still holds its call, and runs it once when approved.
	pol := newServer(t, logModel)
	pol.Script(ollamatest.TextTurn("The hat is in the box."))
	p, pres := resume(t, logOptions(pol, dir, box, permissions.Approve), dir, id)
	if len(pres.Pending) != 1 || pres.Pending[0].ID != ap {
		t.Fatalf("the parent after the fork: pending %+v, want %s", pres.Pending, ap)
	}
	pr := startLogged(t, p)
	if err := p.Decide(ap, true); err != nil {
		t.Fatal(err)
	}
	finishedWith(t, pr.turn(), session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"hat"}) {
		t.Errorf("puts %v, want the parent's one", w)
	}
}

func sameMessage(a, b session.Message) bool {
	return a == b
}

// A fork is never let do more than its parent: a session grant stays with
// the session it was given in, and the mode is the narrower of the
// parent's and the one the fork is started with.
func TestForkNeverWidensPermissions(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(logCallsTurn(logCall("call_put_pen", "box__put", "thing", "pen")), ollamatest.TextTurn("The pen is in."))
	parent := session.New(logOptions(ol, dir, box, permissions.Approve))
	r := startLogged(t, parent)
	if err := parent.Grant("box__put"); err != nil {
		t.Fatal(err)
	}
	send(t, parent, "put a pen in the box")
	finishedWith(t, r.turn(), session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"pen"}) {
		t.Fatalf("the granted put did not run in the parent: %v", w)
	}
	parent.Close()

	fol := newServer(t, logModel)
	fol.Script(logCallsTurn(logCall("call_put_cup", "box__put", "thing", "cup")))
	o := logOptions(fol, dir, box, permissions.Auto) // wider than the parent's
	o.ModeFromFlag = true                            // as --mode auto on the command line
	f, _ := fork(t, o, dir, parent.ID())
	if f.Mode() != permissions.Approve {
		t.Errorf("the fork's mode is %s, want the parent's approve (the narrower)", f.Mode())
	}
	fr := startLogged(t, f)
	send(t, f, "and a cup")
	fr.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
	if w := box.written(); !slices.Equal(w, []string{"pen"}) {
		t.Errorf("puts %v: the parent's grant let the fork's put run", w)
	}
	for _, e := range f.AllowList() {
		if strings.Contains(e.Name, "put") {
			t.Errorf("the fork's allow-list holds %+v", e)
		}
	}
}

// A gateway's run is not a chat: it is not forked.
func TestForkOfAGatewayRunIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := logOptions(newServer(t, logModel), dir, nil, permissions.Approve)
	o.Gateway = true
	g := session.New(o)
	g.Start()
	g.Close()
	if _, _, err := session.Fork(logOptions(newServer(t, logModel), dir, nil, permissions.Approve), dir, g.ID()); !errors.Is(err, session.ErrGatewayRun) {
		t.Fatalf("Fork of a gateway run = %v, want ErrGatewayRun", err)
	}
	if sums, _ := session.List(dir); len(sums) != 1 {
		t.Errorf("a refused fork left a log behind: %+v", sums)
	}
}

// A call that had started when latch stopped (in doubt) is not taken into
// a fork: it is not run again there, and the model is told its outcome is
// unknown, not that it did not run.
func TestForkLeavesACallInDoubt(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(logCallsTurn(logCall("call_put_pen", "box__put", "thing", "pen")), ollamatest.TextTurn("Done."))
	parent := session.New(logOptions(ol, dir, box, permissions.Auto))
	r := startLogged(t, parent)
	send(t, parent, "put a pen in the box")
	finishedWith(t, r.turn(), session.ReasonStop)
	parent.Close()
	// The log as a crash while the put ran leaves it: up to its start.
	lines := logLines(t, logFile(dir, parent.ID()))
	cut := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"type":"tool_result"`) })
	if cut < 0 {
		t.Fatal("no tool_result in the log")
	}
	writeLines(t, logFile(dir, parent.ID()), lines[:cut])

	fol := newServer(t, logModel)
	fol.Script(ollamatest.TextTurn("I cannot tell whether the pen went in."))
	f, res := fork(t, logOptions(fol, dir, box, permissions.Auto), dir, parent.ID())
	if len(res.InDoubt)+len(f.InDoubtCalls()) != 0 || f.Blocked() != "" {
		t.Fatalf("the fork took up the call in doubt: %+v, blocked %q", res.InDoubt, f.Blocked())
	}
	fr := startLogged(t, f)
	send(t, f, "did it work?")
	finishedWith(t, fr.turn(), session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"pen"}) {
		t.Errorf("puts %v: the call in doubt ran again in the fork", w)
	}
	var told string
	for _, m := range fol.Requests()[0].Messages {
		if m.Role == "tool" && m.ToolCallID == "call_put_pen" {
			told = m.Content
		}
	}
	if !strings.Contains(told, "outcome unknown") || strings.Contains(told, "not run:") {
		t.Errorf("the model was told %q of the call in doubt, want that its outcome is unknown", told)
	}
}
