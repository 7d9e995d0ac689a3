package session_test

import (
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// TestArgumentRulesDecideAndAreNamed: the gate reads a call's arguments.
// In read_only, a write whose text an allow rule covers runs without
// asking, one a deny rule also covers is refused (deny wins), and each
// permission event names the rule that decided.
func TestArgumentRulesDecideAndAreNamed(t *testing.T) {
	t.Parallel()
	rule := func(args map[string]any, decision, origin string) permissions.Rule {
		r, err := permissions.CompileRule(permissions.RuleSpec{Tool: "write_note", Args: args, Decision: decision}, "notes", origin, "")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.ReadOnly, Rules: []permissions.Rule{
		rule(map[string]any{"text": "milk*"}, "allow", "config c.json: server \"notes\": rules[0]"),
		rule(map[string]any{"text": "re:.*secret.*"}, "deny", "config c.json: server \"notes\": rules[1]"),
	}}})
	h.ol.Script(callsTurn(toolCall("call_w1", "notes__write_note", "text", "milk and eggs")),
		callsTurn(toolCall("call_w2", "notes__write_note", "text", "milk: the secret recipe")),
		ollamatest.TextTurn("done"))

	send(t, h.sess, "note it")
	evs := h.r.turn()
	finished(t, evs, "done")

	var perms []*session.PermissionEvent
	for _, e := range evs {
		if p, ok := e.(*session.PermissionEvent); ok {
			perms = append(perms, p)
		}
	}
	if len(perms) != 2 {
		t.Fatalf("%d permission events, want 2: %s", len(perms), kinds(evs))
	}
	if p := perms[0]; p.Decision != "allowed" || p.Rule != `config c.json: server "notes": rules[0]` {
		t.Errorf("first write: %+v, want allowed by rules[0]", p)
	}
	if p := perms[1]; p.Decision != "denied" || p.Rule != `config c.json: server "notes": rules[1]` ||
		!strings.Contains(p.Reason, `rules[1]`) {
		t.Errorf("second write: %+v, want denied by rules[1], named in the reason", p)
	}
	if got := h.notes.written(); len(got) != 1 || got[0] != "milk and eggs" {
		t.Errorf("writes that ran: %q, want only the first", got)
	}
}

// TestGatewayNeverParksADenyRule: latch serve parks a call that would be
// put to a person, but never one a deny rule refuses — in ask mode, and
// with ParkUnlisted in read_only — while a call an ask rule covers parks.
func TestGatewayNeverParksADenyRule(t *testing.T) {
	t.Parallel()
	rule := func(args map[string]any, decision string) permissions.Rule {
		r, err := permissions.CompileRule(permissions.RuleSpec{Tool: "write_note", Args: args, Decision: decision}, "notes", decision+" rule", "")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, mode := range []permissions.Mode{permissions.Ask, permissions.ReadOnly} {
		h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{Mode: mode, Rules: []permissions.Rule{
			rule(map[string]any{"text": "re:.*secret.*"}, "deny"), rule(map[string]any{"text": "ask*"}, "ask")}}})
		ctx := bounded(t)
		call := func(text string) session.GatewayOutcome {
			return h.sess.GatewayCall(ctx, session.GatewayCall{Client: "c", Name: "notes__write_note",
				Arguments: map[string]any{"text": text}, ParkUnlisted: true})
		}
		if out := call("the secret"); out.Decision != session.GatewayDenied || !strings.Contains(out.Reason, "deny rule") {
			t.Errorf("%s: a call a deny rule covers: %+v, want denied naming the rule", mode, out)
		}
		if out := call("ask me"); out.Decision != session.GatewayParked {
			t.Errorf("%s: a call an ask rule covers: %+v, want parked", mode, out)
		}
		if w := h.notes.written(); len(w) != 0 {
			t.Errorf("%s: calls ran: %q", mode, w)
		}
		if !h.sess.GatewayParks("notes__write_note", false) {
			t.Errorf("%s: write_note, which an ask rule covers, is not served as a tool whose calls may park", mode)
		}
	}
}
