package session_test

import (
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestThinkLevelsEachVersion: a thinking level for a model that can think
// (and is no gpt-oss): v0.32.15 takes every level, "max" too; v0.17.4
// refuses each, and the refusal says how to ask plainly while the message
// is not kept. "on" is taken by both.
func TestThinkLevelsEachVersion(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		s := tg.session(t, session.Options{Model: tg.thinker})
		r := newReader(t, s)
		for _, level := range []string{"max", "low", "on"} {
			if err := s.SetThink(level); err != nil || s.Think() != level {
				t.Fatalf("SetThink(%q): %v, now %q", level, err, s.Think())
			}
			send(t, s, "hi")
			evs := r.turn()
			d := done(t, evs)
			if tg.version == ollamatest.V03215 || level == "on" {
				if _, thinking := texts(evs); d.Reason != session.ReasonStop || thinking == "" {
					t.Errorf("%s: %s, thinking %q", level, kinds(evs), thinking)
				}
				continue
			}
			if !d.Unsent {
				t.Fatalf("%s: %s, want refused and unsent", level, kinds(evs))
			}
			containsAll(t, one[*session.Error](t, evs).Message, "think value", "takes no thinking level", "/think on")
		}
		if err := s.SetThink("loud"); err == nil || s.Think() != "on" {
			t.Errorf("SetThink(loud): %v, now %q", err, s.Think())
		}
	})
}
