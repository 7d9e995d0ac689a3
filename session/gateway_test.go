package session_test

import (
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
)

// A gateway's call takes the chat's path through the gate: the same
// events (its client named), the same refusals, and a call runs only when
// allowed.
func TestGatewayCallGoesThroughTheGate(t *testing.T) {
	h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{
		ServerAllow: map[string][]string{"notes": {"read_note"}},
	}})
	ctx := bounded(t)
	call := func(name string) session.GatewayOutcome {
		return h.sess.GatewayCall(ctx, session.GatewayCall{Client: "claude-code", Name: name,
			Arguments: map[string]any{"text": "hi"}})
	}

	out := call("notes__read_note")
	if out.Decision != session.GatewayAllowed || out.Result == nil || out.Result.IsError || len(out.Result.Content) == 0 {
		t.Fatalf("allowed call: %+v", out)
	}
	if !strings.HasPrefix(out.ID, "gw_") {
		t.Errorf("invocation id %q", out.ID)
	}
	evs := h.r.until(func(e session.Event) bool { _, ok := e.(*session.ToolResultEvent); return ok })
	tc := one[*session.ToolCallEvent](t, evs)
	if tc.Client != "claude-code" || tc.CallID != out.ID {
		t.Errorf("tool_call event: %+v", tc)
	}
	if p := one[*session.PermissionEvent](t, evs); p.Decision != "allowed" || p.CallID != out.ID {
		t.Errorf("permission event: %+v", p)
	}

	out = call("notes__write_note")
	if out.Decision != session.GatewayDenied || !strings.Contains(out.Reason, "read_only") ||
		!strings.Contains(out.Reason, "write_note in server notes's allow") {
		t.Errorf("read_only call: %+v", out)
	}
	h.sess.SetServerMode("notes", permissions.Approve)
	out = call("notes__write_note")
	if out.Decision != session.GatewayDenied || !strings.Contains(out.Reason, "needs a person's approval") {
		t.Errorf("approve-mode call: %+v", out)
	}
	h.sess.SetServerMode("notes", permissions.Ask)
	out = call("notes__write_note")
	if out.Decision != session.GatewayDenied || !strings.Contains(out.Reason, "needs a person's approval") {
		t.Errorf("ask-mode call: %+v", out)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("refused calls ran: %q", w)
	}
	if got := h.sess.Approvals(); len(got) != 0 {
		t.Errorf("a refused call was parked: %+v", got)
	}

	if out = call("nope__x"); out.Decision != session.GatewayUnknown {
		t.Errorf("unknown tool: %+v", out)
	}
	h.sess.SetServerMode("notes", permissions.Auto)
	if out = call("notes__write_note"); out.Decision != session.GatewayAllowed || len(h.notes.written()) != 1 {
		t.Errorf("auto-mode call: %+v, writes %q", out, h.notes.written())
	}
}
