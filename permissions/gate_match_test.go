package permissions

import (
	"sync"
	"testing"
	"time"
)

// holdMatching makes the next call with the path held wait, as its rules
// are about to be matched, until release is closed; matching is closed
// once it waits. Every later matching of it goes on at once.
func holdMatching(t *testing.T, held string) (matching, release chan struct{}) {
	matching, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	matchHook = func(c Call) {
		if c.Args["path"] == held {
			once.Do(func() {
				close(matching)
				<-release
			})
		}
	}
	t.Cleanup(func() { matchHook = nil })
	return matching, release
}

// waitFor fails the test when f does not return within a minute, rather
// than hanging it: f returns at once unless it waits for another call.
func waitFor(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s waited for a call being matched", what)
	}
}

// While one call's values are being matched against the rules (however
// long that takes), a person's decision is recorded, a grant and a mode
// change are made, and other calls are decided: nothing waits for it.
func TestDecideHoldsNoOneBack(t *testing.T) {
	g := NewGate(Policy{Mode: Approve, Home: testHome, Servers: []string{"fs"},
		Rules: []Rule{mustRule(t, "fs", "*", map[string]any{"path": "~/**/.git/**/hooks/**"}, "deny")}})
	matching, release := holdMatching(t, "~/slow")
	slow := make(chan Verdict, 1)
	go func() {
		slow <- g.Decide(Call{Server: "fs", Tool: "read", Name: "fs__read", Args: map[string]any{"path": "~/slow"}})
	}()
	<-matching
	waitFor(t, "a person's decision", func() { g.RecordDecision("gw_1", false) })
	waitFor(t, "a grant", func() { g.Grant("fs__list", "d1") })
	waitFor(t, "another call's decision", func() {
		if v := g.Decide(Call{Server: "fs", Tool: "read", Name: "fs__read",
			Args: map[string]any{"path": "~/p/.git/hooks/pre-commit"}}); v.Decision != Deny {
			t.Errorf("another call: %+v", v)
		}
	})
	waitFor(t, "a mode change", func() { g.SetServerMode("fs", Auto) })
	close(release)
	// The call held is decided by the gate as it is now: fs in auto mode.
	if v := <-slow; v.Decision != Allow || v.Mode != Auto {
		t.Errorf("the call held: %+v", v)
	}
}

// A rule added while a call is being matched decides it: the call is
// matched again against the rules of the moment it is decided.
func TestDecideRuleAddedWhileMatching(t *testing.T) {
	g := NewGate(Policy{Mode: Auto, Home: testHome, Servers: []string{"fs"}})
	matching, release := holdMatching(t, "~/.ssh/id_rsa")
	slow := make(chan Verdict, 1)
	go func() {
		slow <- g.Decide(Call{Server: "fs", Tool: "read", Name: "fs__read", Args: map[string]any{"path": "~/.ssh/id_rsa"}})
	}()
	<-matching
	waitFor(t, "a rule added", func() {
		g.AddRule(mustRule(t, "", "*", map[string]any{"*": "~/.ssh/**"}, "deny"))
	})
	close(release)
	if v := <-slow; v.Decision != Deny || v.Rule == "" {
		t.Errorf("the call held was decided by the rules before the new one: %+v", v)
	}
}
