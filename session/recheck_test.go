package session_test

import (
	"errors"
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
)

// configRule is a rule as the config at test.json would give it.
func configRule(t *testing.T, decision string) permissions.Rule {
	t.Helper()
	r, err := permissions.CompileRule(permissions.RuleSpec{Tool: "notes__write_note", Decision: decision},
		"", "config test.json: permissions.rules[0]", "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A gateway's parked call is decided again against the rules of the
// moment when a person approves it: a deny rule read from the config now
// (RulesNow) refuses it naming the rule, and ApprovalNotice said so
// before; an ask rule leaves it approvable (the person is approving); a
// config that no longer loads refuses it (fail closed); a deny rule added
// in the session (/deny) refuses it too.
func TestGatewayApprovalCheckedAgainstRulesOfTheMoment(t *testing.T) {
	var onDisk []permissions.Rule
	var diskErr error
	for _, tc := range []struct {
		name     string
		disk     func()
		deny     string // a /deny rule added in the session
		runs     bool
		reason   string // in the refusal, and in ApprovalNotice
		ruleName string // the permission event's rule
	}{
		{name: "deny rule in the config", disk: func() { onDisk = []permissions.Rule{configRule(t, "deny")} },
			reason: "a rule now denies this call: config test.json: permissions.rules[0]", ruleName: "config test.json: permissions.rules[0]"},
		{name: "ask rule in the config", disk: func() { onDisk = []permissions.Rule{configRule(t, "ask")} }, runs: true},
		{name: "config broken", disk: func() { diskErr = errors.New("config test.json:3:1: invalid JSON\nmore") },
			reason: "the config no longer loads"},
		{name: "deny rule added in the session", deny: "notes__write_note", reason: "a rule now denies this call: /deny",
			ruleName: `/deny "notes__write_note"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onDisk, diskErr = nil, nil
			h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{Servers: []string{"notes"}},
				RulesNow: func() ([]permissions.Rule, error) { return onDisk, diskErr }})
			h.sess.SetServerMode("notes", permissions.Approve)
			out := h.sess.GatewayCall(bounded(t), session.GatewayCall{Client: "ci", Name: "notes__write_note",
				Arguments: map[string]any{"text": "hi"}})
			if out.Decision != session.GatewayParked {
				t.Fatalf("call: %+v", out)
			}
			if tc.disk != nil {
				tc.disk()
			}
			if tc.deny != "" {
				if _, err := h.sess.AddRule("/deny", tc.deny); err != nil {
					t.Fatal(err)
				}
			}
			notice := h.sess.ApprovalNotice(out.ID)
			if (notice == "") != tc.runs || !strings.Contains(notice, tc.reason) {
				t.Errorf("ApprovalNotice before deciding: %q, want one saying %q", notice, tc.reason)
			}
			if err := h.sess.GatewayDecide(out.ID, true, "alice", ""); err != nil {
				t.Fatal(err)
			}
			got := awaitSettled(t, h.sess, out.ID)
			if w := h.notes.written(); tc.runs != (len(w) == 1) || len(w) > 1 {
				t.Errorf("the approved call ran %d times (runs %v): %+v", len(w), tc.runs, got)
			}
			if tc.runs {
				if got.Decision != session.GatewayAllowed {
					t.Errorf("approved under an ask rule: %+v", got)
				}
				return
			}
			if got.Decision != session.GatewayDenied || !strings.Contains(got.Reason, tc.reason) || strings.Contains(got.Reason, "more") {
				t.Errorf("approved, refused by the rules of the moment: %+v, want a refusal saying %q", got, tc.reason)
			}
			evs := h.r.until(func(e session.Event) bool { _, ok := e.(*session.ToolResultEvent); return ok })
			var denied *session.PermissionEvent
			for _, p := range of[*session.PermissionEvent](evs) {
				if p.Decision == "denied" {
					denied = p
				}
			}
			if denied == nil || denied.Rule != tc.ruleName {
				t.Errorf("the refusal's permission event: %+v, want rule %q", denied, tc.ruleName)
			}
		})
	}
}
