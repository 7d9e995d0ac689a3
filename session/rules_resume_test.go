package session_test

import (
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// TestResumeKeepsTheFlagRules: a session run with --deny is resumed
// without it: the deny still refuses the call it refused, and names the
// flag; what it does not cover still runs.
func TestResumeKeepsTheFlagRules(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	o := logOptions(newServer(t, logModel), dir, box, permissions.Auto)
	deny, err := permissions.FlagRule("--deny", "box__put(thing=hat)", "")
	if err != nil {
		t.Fatal(err)
	}
	o.Policy.Rules = []permissions.Rule{deny}
	s := session.New(o)
	startLogged(t, s)
	s.Close()

	ol := newServer(t, logModel)
	ol.Script(logCallsTurn(logCall("call_hat", "box__put", "thing", "hat"), logCall("call_cap", "box__put", "thing", "cap")),
		ollamatest.TextTurn("put the cap only"))
	s2, _ := resume(t, logOptions(ol, dir, box, permissions.Auto), dir, s.ID())
	r := startLogged(t, s2)
	send(t, s2, "put a hat and a cap in the box")
	evs := r.turn()
	var denied *session.PermissionEvent
	for _, p := range of[*session.PermissionEvent](evs) {
		if p.CallID == "call_hat" {
			denied = p
		}
	}
	if denied == nil || denied.Decision != "denied" || denied.Rule != `--deny "box__put(thing=hat)"` {
		t.Errorf("the hat's permission: %+v, want denied by the --deny of the first run", denied)
	}
	if w := box.written(); len(w) != 1 || w[0] != "cap" {
		t.Errorf("puts %q, want only the cap", w)
	}
}
