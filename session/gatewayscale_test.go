package session_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"latch/permissions"
	"latch/session"
)

// parkedCost is how many calls the cost tests park, and the most
// goroutines they may add between them: a parked call holds none.
const parkedCost, goroutineSlack = 300, 50

// goroutinesSettled is the number of goroutines once it stops falling
// (what earlier tests started may still be ending).
func goroutinesSettled() int {
	n := runtime.NumGoroutine()
	for range 20 {
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n {
			return m
		}
		n = m
	}
	return n
}

// A gateway's parked call costs its data, not a goroutine and a timer
// waiting for 24 hours: many parked calls add no goroutines, and each one
// still runs once when approved, or expires, as before.
func TestGatewayParkedCallsHoldNoGoroutine(t *testing.T) {
	h := newToolHarness(t, session.Options{NonInteractive: true})
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	before := goroutinesSettled()
	ids := make([]string, parkedCost)
	for i := range ids {
		out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: "notes__write_note",
			Arguments: map[string]any{"text": fmt.Sprintf("call %d", i)}})
		if out.Decision != session.GatewayParked {
			t.Fatalf("call %d: %+v", i, out)
		}
		ids[i] = out.ID
	}
	if grew := goroutinesSettled() - before; grew > goroutineSlack {
		t.Errorf("%d parked calls added %d goroutines, want none of their own", parkedCost, grew)
	}
	if got := h.sess.Approvals(); len(got) != parkedCost {
		t.Errorf("%d approvals pending, want %d", len(got), parkedCost)
	}
	if err := h.sess.GatewayDecide(ids[7], true, "alice", ""); err != nil {
		t.Fatal(err)
	}
	if got := awaitSettled(t, h.sess, ids[7]); got.Decision != session.GatewayAllowed {
		t.Errorf("the approved call: %+v", got)
	}
	if w := h.notes.written(); len(w) != 1 || !strings.Contains(w[0], "call 7") {
		t.Errorf("the notes server got %q, want only call 7", w)
	}
}

// A call parked with a short ttl after calls with long ones expires on
// time (the one expiry timer is brought forward), and only it.
func TestGatewayEarlierExpiryComesFirst(t *testing.T) {
	h := newToolHarness(t, session.Options{NonInteractive: true})
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	call := func(ttl time.Duration) string {
		out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: "notes__write_note",
			Arguments: map[string]any{"text": "hi"}, TTL: ttl})
		if out.Decision != session.GatewayParked {
			t.Fatalf("call: %+v", out)
		}
		return out.ID
	}
	long, later, short := call(time.Hour), call(2*time.Hour), call(50*time.Millisecond)
	if got := awaitSettled(t, h.sess, short); got.Decision != session.GatewayExpired {
		t.Errorf("the short-lived call: %+v", got)
	}
	for _, id := range []string{long, later} {
		if got := h.sess.GatewayAwait(ctx, id, time.Millisecond); got.Decision != session.GatewayParked {
			t.Errorf("a long-lived call once the short one expired: %+v", got)
		}
	}
	if got := h.sess.Approvals(); len(got) != 2 {
		t.Errorf("pending approvals: %+v, want the two long-lived calls", got)
	}
}

// A restarted gateway takes up its many waiting calls without a goroutine
// for each: they wait as data, and are decided as before.
func TestGatewayResumedCallsHoldNoGoroutine(t *testing.T) {
	dir := t.TempDir()
	o := session.Options{NonInteractive: true, LogDir: dir, ID: "gw-many"}
	h := newToolHarness(t, o)
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	ids := make([]string, parkedCost)
	for i := range ids {
		out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: "notes__write_note",
			Arguments: map[string]any{"text": fmt.Sprintf("call %d", i)}})
		if out.Decision != session.GatewayParked {
			t.Fatalf("call %d: %+v", i, out)
		}
		ids[i] = out.ID
	}
	h.sess.Close()

	again := newToolHarness(t, o)
	before := goroutinesSettled()
	if n, err := again.sess.ResumeGateway(); err != nil || n != parkedCost {
		t.Fatalf("ResumeGateway: %d, %v", n, err)
	}
	if grew := goroutinesSettled() - before; grew > goroutineSlack {
		t.Errorf("taking up %d parked calls added %d goroutines, want none of their own", parkedCost, grew)
	}
	if err := again.sess.GatewayDecide(ids[3], false, "bob", "no"); err != nil {
		t.Fatal(err)
	}
	if got := awaitSettled(t, again.sess, ids[3]); got.Decision != session.GatewayDenied {
		t.Errorf("the call rejected after the restart: %+v", got)
	}
	if got := again.sess.GatewayAwait(ctx, ids[4], time.Millisecond); got.Decision != session.GatewayParked {
		t.Errorf("an undecided call after the restart: %+v", got)
	}
}
