package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

// A call that would ask a person parks (ask mode, approve mode, and an
// unlisted read_only tool with ParkUnlisted) and returns at once; nothing
// runs until a person approves, then it runs once and every poll gets its
// result.
func TestGatewayParkedCallRunsOnceWhenApproved(t *testing.T) {
	for _, tc := range []struct {
		name         string
		mode         permissions.Mode
		parkUnlisted bool
	}{{"ask", permissions.Ask, false}, {"approve", permissions.Approve, false}, {"read_only", permissions.ReadOnly, true}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newToolHarness(t, session.Options{NonInteractive: true})
			h.sess.SetServerMode("notes", tc.mode)
			ctx := bounded(t)
			if !h.sess.GatewayParks("notes__write_note", tc.parkUnlisted) {
				t.Errorf("GatewayParks says the call would not park")
			}
			out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "claude-code", Name: "notes__write_note",
				Arguments: map[string]any{"text": "hi"}, ParkUnlisted: tc.parkUnlisted})
			if out.Decision != session.GatewayParked || out.Expires.IsZero() {
				t.Fatalf("call: %+v", out)
			}
			parked := h.r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
			if ap := one[*session.ApprovalParkedEvent](t, parked); ap.CallID != out.ID || ap.Client != "claude-code" || ap.Expires == "" {
				t.Errorf("approval_parked: %+v", ap)
			}
			if got := h.sess.GatewayAwait(ctx, out.ID, 10*time.Millisecond); got.Decision != session.GatewayParked {
				t.Errorf("poll before a decision: %+v", got)
			}
			if w := h.notes.written(); len(w) != 0 {
				t.Fatalf("a parked call ran: %q", w)
			}
			if err := h.sess.GatewayDecide(out.ID, true, "alice on /dev/pts/3", ""); err != nil {
				t.Fatal(err)
			}
			if err := h.sess.GatewayDecide(out.ID, false, "bob", ""); !errors.Is(err, permissions.ErrAlreadyResolved) {
				t.Errorf("a second decision: %v", err)
			}
			got := awaitSettled(t, h.sess, out.ID)
			if got.Decision != session.GatewayAllowed || got.Result == nil || got.Result.IsError {
				t.Fatalf("poll after approval: %+v", got)
			}
			again := h.sess.GatewayAwait(ctx, out.ID, time.Millisecond)
			if again.Decision != session.GatewayAllowed || again.Result != got.Result {
				t.Errorf("a later poll: %+v", again)
			}
			if w := h.notes.written(); len(w) != 1 {
				t.Errorf("the approved call ran %d times: %q", len(w), w)
			}
			evs := h.r.until(func(e session.Event) bool { _, ok := e.(*session.ToolResultEvent); return ok })
			if r := one[*session.ApprovalResolvedEvent](t, evs); r.Decision != "approved" || r.By != "alice on /dev/pts/3" {
				t.Errorf("approval_resolved: %+v", r)
			}
		})
	}
}

// A rejected call never runs and its poller is told who rejected it and
// why; an expired one never runs either; an unknown id is unknown.
func TestGatewayParkedCallRejectedOrExpired(t *testing.T) {
	h := newToolHarness(t, session.Options{NonInteractive: true})
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	call := func(ttl time.Duration) session.GatewayOutcome {
		out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: "notes__write_note",
			Arguments: map[string]any{"text": "hi"}, TTL: ttl})
		if out.Decision != session.GatewayParked {
			t.Fatalf("call: %+v", out)
		}
		return out
	}

	rej := call(0)
	if err := h.sess.GatewayDecide(rej.ID, false, "alice", "not today"); err != nil {
		t.Fatal(err)
	}
	if got := awaitSettled(t, h.sess, rej.ID); got.Decision != session.GatewayDenied ||
		strings.Contains(got.Reason, "alice") || !strings.Contains(got.Reason, "not today") {
		t.Errorf("rejected (the client is told why, not who): %+v", got)
	}

	exp := call(50 * time.Millisecond)
	if got := awaitSettled(t, h.sess, exp.ID); got.Decision != session.GatewayExpired {
		t.Errorf("expired: %+v", got)
	}
	if err := h.sess.GatewayDecide(exp.ID, true, "alice", ""); !errors.Is(err, permissions.ErrAlreadyResolved) {
		t.Errorf("approving an expired call: %v", err)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("a rejected or expired call ran: %q", w)
	}
	if got := h.sess.GatewayAwait(ctx, "gw_nope", time.Millisecond); got.Decision != session.GatewayUnknown {
		t.Errorf("unknown id: %+v", got)
	}
	if err := h.sess.GatewayDecide("gw_nope", true, "alice", ""); !errors.Is(err, session.ErrUnknownInvocation) {
		t.Errorf("deciding an unknown id: %v", err)
	}
}

// awaitSettled polls a parked call until it is no longer waiting.
func awaitSettled(t *testing.T, s *session.Session, id string) session.GatewayOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if out := s.GatewayAwait(ctx, id, 200*time.Millisecond); out.Decision != session.GatewayParked {
			return out
		}
	}
	t.Fatalf("call %s still waits", id)
	return session.GatewayOutcome{}
}

// Decisions sent from other processes reach the gateway through its
// inbox: the first applies and is logged with who decided; a second one
// on the same call waits its turn (ErrDecisionQueued) or, sent after the
// first applied, is refused and removed; ParkedCalls reads the outcome.
func TestGatewayInboxFirstDecisionWins(t *testing.T) {
	dir := t.TempDir()
	h := newToolHarness(t, session.Options{NonInteractive: true, LogDir: dir})
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: "notes__write_note",
		Arguments: map[string]any{"text": "hi"}})
	if out.Decision != session.GatewayParked {
		t.Fatalf("call: %+v", out)
	}
	if !session.Running(dir, h.sess.ID()) {
		t.Errorf("Running says the session's process is not running")
	}
	waiting, err := session.ParkedCalls(dir)
	if err != nil || len(waiting) != 1 || !waiting[0].Waiting() || waiting[0].CallID != out.ID || waiting[0].Client != "ci" ||
		waiting[0].Expires.IsZero() || waiting[0].Session != h.sess.ID() {
		t.Fatalf("ParkedCalls before a decision: %+v, %v", waiting, err)
	}

	yes := session.Decision{InvocationID: out.ID, Approve: true, By: "alice on /dev/pts/3"}
	no := session.Decision{InvocationID: out.ID, By: "bob on /dev/pts/4", Reason: "no"}
	if err := session.SendDecision(dir, h.sess.ID(), yes); err != nil {
		t.Fatal(err)
	}
	if err := session.SendDecision(dir, h.sess.ID(), no); !errors.Is(err, session.ErrDecisionQueued) {
		t.Errorf("a second decision while the first waits: %v", err)
	}
	type report struct {
		d   session.Decision
		err error
	}
	reports := make(chan report, 4)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go h.sess.WatchInbox(wctx, 10*time.Millisecond, func(d session.Decision, err error) { reports <- report{d, err} })
	if r := <-reports; r.err != nil || r.d.By != yes.By {
		t.Errorf("the first decision: %+v", r)
	}
	if session.DecisionQueued(dir, h.sess.ID(), out.ID) {
		t.Errorf("the applied decision is still in the inbox")
	}
	if err := session.SendDecision(dir, h.sess.ID(), no); err != nil {
		t.Fatal(err)
	}
	if r := <-reports; !errors.Is(r.err, permissions.ErrAlreadyResolved) || r.d.By != no.By {
		t.Errorf("the late decision: %+v", r)
	}
	if got := awaitSettled(t, h.sess, out.ID); got.Decision != session.GatewayAllowed {
		t.Errorf("outcome: %+v", got)
	}
	if w := h.notes.written(); len(w) != 1 {
		t.Errorf("the call ran %d times", len(w))
	}
	decided, _ := session.ParkedCalls(dir)
	if len(decided) != 1 || decided[0].Decision != "approved" || decided[0].By != yes.By {
		t.Errorf("ParkedCalls after the decision: %+v", decided)
	}
}

// A gateway session opened again with its id takes up what its last run
// parked: a call that ran gives its logged result, a rejected one its
// denial, and one still waiting waits again under the same invocation id
// and runs once when approved.
func TestGatewayResumeTakesUpParkedCalls(t *testing.T) {
	dir := t.TempDir()
	o := session.Options{NonInteractive: true, LogDir: dir, ID: "gw-resume"}
	h := newToolHarness(t, o)
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	park := func(h *toolHarness, text string) string {
		out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: "notes__write_note",
			Arguments: map[string]any{"text": text}})
		if out.Decision != session.GatewayParked {
			t.Fatalf("call: %+v", out)
		}
		return out.ID
	}
	// The waiting call's line in the log is longer than a read buffer.
	ran, rejected, waiting := park(h, "ran"), park(h, "rejected"), park(h, "waiting"+strings.Repeat(" long", 30_000))
	if err := h.sess.GatewayDecide(ran, true, "alice", ""); err != nil {
		t.Fatal(err)
	}
	if err := h.sess.GatewayDecide(rejected, false, "bob", "no"); err != nil {
		t.Fatal(err)
	}
	awaitSettled(t, h.sess, ran)
	awaitSettled(t, h.sess, rejected)
	h.sess.Close()
	if w, err := session.HasWaiting(dir, "gw-resume"); !w || err != nil {
		t.Errorf("HasWaiting with a call waiting: %v, %v", w, err)
	}

	again := newToolHarness(t, o)
	if n, err := again.sess.ResumeGateway(); err != nil || n != 3 {
		t.Fatalf("ResumeGateway: %d, %v", n, err)
	}
	if got := again.sess.GatewayAwait(ctx, ran, time.Millisecond); got.Decision != session.GatewayAllowed ||
		got.Result == nil || !strings.Contains(got.Result.Text, "ran") {
		t.Errorf("the call that ran: %+v", got)
	}
	if got := again.sess.GatewayAwait(ctx, rejected, time.Millisecond); got.Decision != session.GatewayDenied ||
		!strings.Contains(got.Reason, "rejected by a person: no") {
		t.Errorf("the rejected call: %+v", got)
	}
	if got := again.sess.GatewayAwait(ctx, waiting, time.Millisecond); got.Decision != session.GatewayParked {
		t.Errorf("the waiting call: %+v", got)
	}
	if got := again.sess.Approvals(); len(got) != 1 || got[0].CallID != waiting {
		t.Errorf("pending approvals after the restart: %+v", got)
	}
	if err := again.sess.GatewayDecide(waiting, true, "carol", ""); err != nil {
		t.Fatal(err)
	}
	if got := awaitSettled(t, again.sess, waiting); got.Decision != session.GatewayAllowed {
		t.Errorf("the call approved after the restart: %+v", got)
	}
	if w, err := session.HasWaiting(dir, "gw-resume"); w || err != nil {
		t.Errorf("HasWaiting with every call decided: %v, %v", w, err)
	}
	if w := again.notes.written(); len(w) != 1 || !strings.Contains(w[0], "waiting") {
		t.Errorf("after the restart the notes server got %q, want only the call approved since", w)
	}
}
