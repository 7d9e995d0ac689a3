package session_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"latch/permissions"
	"latch/session"
)

// slowRules are argument rules whose matching takes long on a long value
// and whose cost no glob matching changes: regular expressions with no
// literal the index or a prefix test could refuse a value by, so that
// each one is run over the whole value.
func slowRules(t *testing.T, n int) []permissions.Rule {
	t.Helper()
	var out []permissions.Rule
	for i := range n {
		r, err := permissions.CompileRule(permissions.RuleSpec{Tool: "notes__write_note", Decision: "deny",
			Args: map[string]any{"text": fmt.Sprintf("re:(?i).*/HOOKS/x%d", i)}}, "", fmt.Sprintf("rules[%d]", i), "/home/me")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// While one client's call is being decided, and the deciding takes long
// (a 1 MB value against rules each run over all of it), a person's
// rejection of another parked call goes through (its client is told) and
// another client's calls are decided and run: the slow decision holds
// no one back. (Before, it held the gate's read lock throughout: the
// rejection's write waited for it, and every call decided after the
// rejection waited behind the write.)
func TestGatewaySlowDecisionHoldsNoOneBack(t *testing.T) {
	h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{
		Rules:       slowRules(t, 8),
		ServerAllow: map[string][]string{"notes": {"read_note"}},
	}})
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	parked := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "bystander", Name: "notes__write_note",
		Arguments: map[string]any{"text": "hi"}})
	if parked.Decision != session.GatewayParked {
		t.Fatalf("the call to reject: %+v", parked)
	}

	slow := make(chan session.GatewayOutcome, 1)
	go func() {
		slow <- h.sess.GatewayCall(ctx, session.GatewayCall{Client: "slow", Name: "notes__write_note",
			Arguments: map[string]any{"text": strings.Repeat("/w/.git/z", 1<<20/9) + "/hooks/x7"}})
	}()
	// The slow call is at the gate once its tool_call event is out (it is
	// published just before the decision); its decision is out with its
	// permission event (the last rule denies it: nothing but that event
	// comes between its decision and its refusal).
	var slowID string
	h.r.until(func(e session.Event) bool {
		if tc, ok := e.(*session.ToolCallEvent); ok && tc.Client == "slow" {
			slowID = tc.CallID
			return true
		}
		return false
	})
	slowDecided := make(chan struct{})
	go func() {
		defer close(slowDecided)
		for {
			e, ok := h.r.next(ctx)
			if p, is := e.(*session.PermissionEvent); !ok || is && p.CallID == slowID {
				return
			}
		}
	}()

	// One after the other, as a person and a client would: the rejection
	// (its client told), then the other client's calls.
	bystander := make(chan string, 1)
	go func() {
		if err := h.sess.GatewayDecide(parked.ID, false, "alice", "not now"); err != nil {
			bystander <- err.Error()
			return
		}
		if out := h.sess.GatewayAwait(ctx, parked.ID, time.Hour); out.Decision != session.GatewayDenied {
			bystander <- fmt.Sprintf("the rejected call: %+v", out)
			return
		}
		for range 10 {
			out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "bystander", Name: "notes__read_note",
				Arguments: map[string]any{"text": "hi"}})
			if out.Decision != session.GatewayAllowed || out.Result == nil {
				bystander <- fmt.Sprintf("the other client's call: %+v", out)
				return
			}
		}
		bystander <- ""
	}()
	select {
	case failed := <-bystander:
		if failed != "" {
			t.Fatal(failed)
		}
	case <-slowDecided:
		t.Fatal("the rejection and the other client's calls waited for the slow call's decision")
	}
	if out := <-slow; out.Decision != session.GatewayDenied || !strings.Contains(out.Reason, "rules[7]") {
		t.Errorf("the slow call: %+v", out)
	}
	<-slowDecided
}
