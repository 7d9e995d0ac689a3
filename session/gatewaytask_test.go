package session_test

import (
	"errors"
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
)

// A client withdraws its parked call (MCP tasks/cancel): it never runs,
// GatewayPeek and every poll say so at once, a person can no longer
// decide it, and after a restart it is still withdrawn.
func TestGatewayWithdrawnCallNeverRuns(t *testing.T) {
	o := session.Options{NonInteractive: true, LogDir: t.TempDir(), ID: "gw-withdraw"}
	h := newToolHarness(t, o)
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: "notes__write_note",
		Arguments: map[string]any{"text": "hi"}})
	if out.Decision != session.GatewayParked {
		t.Fatalf("call: %+v", out)
	}
	if got := h.sess.GatewayPeek(out.ID); got.Decision != session.GatewayParked || !got.Expires.Equal(out.Expires) {
		t.Errorf("peek while it waits: %+v", got)
	}
	if err := h.sess.GatewayWithdraw(out.ID, "its client", "tasks/cancel"); err != nil {
		t.Fatal(err)
	}
	got := awaitSettled(t, h.sess, out.ID)
	if got.Decision != session.GatewayWithdrawn || !strings.Contains(got.Reason, "never ran") {
		t.Errorf("withdrawn: %+v", got)
	}
	if peek := h.sess.GatewayPeek(out.ID); peek.Decision != session.GatewayWithdrawn {
		t.Errorf("peek once withdrawn: %+v", peek)
	}
	if err := h.sess.GatewayDecide(out.ID, true, "alice", ""); !errors.Is(err, permissions.ErrAlreadyResolved) {
		t.Errorf("approving a withdrawn call: %v", err)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("a withdrawn call ran: %q", w)
	}
	if peek := h.sess.GatewayPeek("gw_nope"); peek.Decision != session.GatewayUnknown {
		t.Errorf("peek of an unknown id: %+v", peek)
	}
	h.sess.Close()

	calls, err := session.ParkedCallsOf(o.LogDir, o.ID)
	if err != nil || len(calls) != 1 || calls[0].Decision != "withdrawn" || calls[0].By != "its client" {
		t.Fatalf("the log: %+v, %v", calls, err)
	}
	again := newToolHarness(t, o)
	if _, err := again.sess.ResumeGateway(); err != nil {
		t.Fatal(err)
	}
	if got := again.sess.GatewayPeek(out.ID); got.Decision != session.GatewayWithdrawn {
		t.Errorf("after a restart: %+v", got)
	}
}
