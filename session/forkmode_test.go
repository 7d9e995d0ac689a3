package session_test

import (
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// TestForkSaysWhyItsModeIsNarrower: /mode ask in a session whose config
// says read_only, then /fork: the fork does not gain what the config does
// not give (it starts read_only), and says so plainly, naming the mode it
// came from, why, and how to widen it again. A fork whose mode is its
// parent's says nothing of modes; with --mode the notice names --mode.
func TestForkSaysWhyItsModeIsNarrower(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("Hello."))
	parent := session.New(logOptions(ol, dir, nil, permissions.ReadOnly))
	r := startLogged(t, parent)
	parent.SetMode(permissions.Ask) // /mode ask
	send(t, parent, "hi")
	finishedWith(t, r.turn(), session.ReasonStop)
	parent.Close()

	cases := []struct {
		name     string
		mode     permissions.Mode
		fromFlag bool
		want     permissions.Mode
		notice   string // "": no notice of modes
	}{
		{"config read_only", permissions.ReadOnly, false, permissions.ReadOnly,
			"mode read_only, not ask as in the session it came from: a fork starts no wider than the config's permissions.mode (read_only); /mode ask widens it again"},
		{"--mode read_only", permissions.ReadOnly, true, permissions.ReadOnly, "a fork starts no wider than --mode (read_only)"},
		{"config auto", permissions.Auto, false, permissions.Ask, ""},
	}
	for _, c := range cases {
		o := logOptions(newServer(t, logModel), dir, nil, c.mode)
		o.ModeFromFlag = c.fromFlag
		f, _ := fork(t, o, dir, parent.ID())
		fr := newReader(t, f)
		f.Start()
		evs := fr.until(func(e session.Event) bool { _, ok := e.(*session.SettingsEvent); return ok })
		if f.Mode() != c.want {
			t.Errorf("%s: the fork's mode is %s, want %s", c.name, f.Mode(), c.want)
		}
		var said []string
		for _, e := range evs {
			if n, ok := e.(*session.Notice); ok && strings.Contains(n.Text, "mode") {
				said = append(said, n.Text)
			}
		}
		switch {
		case c.notice == "" && len(said) > 0:
			t.Errorf("%s: the fork kept its parent's mode but says %q", c.name, said)
		case c.notice != "" && (len(said) != 1 || !strings.Contains(said[0], c.notice)):
			t.Errorf("%s: the fork's notices of modes %q, want one saying %q", c.name, said, c.notice)
		}
		f.Close()
	}
}
