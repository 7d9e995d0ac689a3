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
	deny, err := permissions.FlagRule("--deny", "box__put(thing=hat)", "")
	if err != nil {
		t.Fatal(err)
	}
	resumeDenies(t, func(o *session.Options) { o.Policy.Rules = []permissions.Rule{deny} }, nil, `--deny "box__put(thing=hat)"`)
}

// TestResumeKeepsTheChatRules: /deny in the chat decides at once, and a
// resumed session keeps it.
func TestResumeKeepsTheChatRules(t *testing.T) {
	t.Parallel()
	resumeDenies(t, nil, func(s *session.Session) {
		if _, err := s.AddRule("/deny", "box__put(thing=hat)"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRule("/deny", "nobox__put(thing=hat)"); err == nil {
			t.Error("/deny of a tool of no server: no error")
		}
	}, `/deny "box__put(thing=hat)"`)
}

// resumeDenies runs a session in auto mode (setup changes its options,
// then live acts on it), closes it, resumes it without any rule, and checks
// that putting a hat is denied by rule while a cap goes in.
func resumeDenies(t *testing.T, setup func(*session.Options), live func(*session.Session), rule string) {
	box := newLogBox()
	dir := t.TempDir()
	o := logOptions(newServer(t, logModel), dir, box, permissions.Auto)
	if setup != nil {
		setup(&o)
	}
	s := session.New(o)
	startLogged(t, s)
	if live != nil {
		live(s)
	}
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
	if denied == nil || denied.Decision != "denied" || denied.Rule != rule {
		t.Errorf("the hat's permission: %+v, want denied by the rule of the first run, %s", denied, rule)
	}
	if w := box.written(); len(w) != 1 || w[0] != "cap" {
		t.Errorf("puts %q, want only the cap", w)
	}
}
