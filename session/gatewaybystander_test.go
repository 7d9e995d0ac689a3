package session_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
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
// (a 512 KB value against rules each run over all of it), a person's
// rejection of another parked call goes through (its client is told) and
// another client's calls are decided and run: the slow decision holds
// no one back. (Before, it held the gate's read lock throughout: the
// rejection's write waited for it, and every call decided after the
// rejection waited behind the write.)
func TestGatewaySlowDecisionHoldsNoOneBack(t *testing.T) {
	h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{
		Rules:       slowRules(t, 4),
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
			Arguments: map[string]any{"text": strings.Repeat("/w/.git/z", 512<<10/9) + "/hooks/x3"}})
	}()
	// The slow call is at the gate once its goroutine is deciding it (the
	// gate decides before anything of the call is published, so no event
	// says so): its stack is watched for the gate's Decide.
	for !deciding() {
		select {
		case out := <-slow:
			t.Fatalf("the slow call was decided before the test saw it at the gate: %+v", out)
		case <-ctx.Done():
			t.Fatal("the slow call never reached the gate")
		case <-time.After(time.Millisecond):
		}
	}

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
	var out session.GatewayOutcome
	select {
	case failed := <-bystander:
		if failed != "" {
			t.Fatal(failed)
		}
		out = <-slow
	case out = <-slow:
		t.Fatal("the rejection and the other client's calls waited for the slow call's decision")
	}
	if out.Decision != session.GatewayDenied || !strings.Contains(out.Reason, "rules[3]") {
		t.Errorf("the slow call: %+v", out)
	}
}

// deciding reports whether a goroutine is in the gate's Decide.
func deciding() bool {
	buf := make([]byte, 8<<20)
	n := runtime.Stack(buf, true)
	return bytes.Contains(buf[:n], []byte("latch/permissions.(*Gate).Decide("))
}

// TestGatewayBystanderLatency measures what one client's slow decisions
// cost another client and a person: a bystander makes calls one after
// another, rejecting a parked call of its own after every tenth, first
// 200 calls alone, then as long as a slow client takes to have 2 calls
// of a 512 KB value decided against rules each run over all of it (and at
// least 200 calls). It reports the p50 and p99 of the bystander's calls
// and of the rejections, and the ratio of the p99s with and without the
// slow client, in one run. A measurement, not a test; run it with:
//
//	LATCH_SERVE_BENCH=1 go test -count=1 -run TestGatewayBystanderLatency -v ./session/
func TestGatewayBystanderLatency(t *testing.T) {
	if os.Getenv("LATCH_SERVE_BENCH") != "1" {
		t.Skip("a measurement; set LATCH_SERVE_BENCH=1 to run it")
	}
	h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{
		Rules:       slowRules(t, 4),
		ServerAllow: map[string][]string{"notes": {"read_note"}},
	}})
	h.sess.SetServerMode("notes", permissions.Approve)
	go func() { // the events are not looked at: drain them
		for _, ok := h.r.next(context.Background()); ok; _, ok = h.r.next(context.Background()) {
		}
	}()
	ctx := bounded(t)
	var alone, beside latencies
	for !alone.enough(nil) {
		alone.call(ctx, t, h.sess)
	}
	slowDone := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(slowDone)
		for range 2 {
			h.sess.GatewayCall(ctx, session.GatewayCall{Client: "slow", Name: "notes__write_note",
				Arguments: map[string]any{"text": strings.Repeat("/w/.git/z", 512<<10/9) + "/hooks/x3"}})
		}
	}()
	for !beside.enough(slowDone) {
		beside.call(ctx, t, h.sess)
	}
	<-slowDone
	t.Logf("a bystander's calls (p50 / p99): alone %.2f / %.2f ms, beside a slow client %.2f / %.2f ms (%d calls in %v): p99 ×%.1f; "+
		"its rejections: alone %.2f / %.2f ms, beside %.2f / %.2f ms (%d): p99 ×%.1f",
		pct(alone.calls, 50), pct(alone.calls, 99), pct(beside.calls, 50), pct(beside.calls, 99), len(beside.calls),
		time.Since(start).Round(time.Millisecond), pct(beside.calls, 99)/pct(alone.calls, 99),
		pct(alone.rejects, 50), pct(alone.rejects, 99), pct(beside.rejects, 50), pct(beside.rejects, 99), len(beside.rejects),
		pct(beside.rejects, 99)/pct(alone.rejects, 99))
}

// latencies are a bystander's calls' and rejections' durations, in ms.
type latencies struct{ calls, rejects []float64 }

// enough: 200 calls made, and until (when set) closed.
func (l *latencies) enough(until chan struct{}) bool {
	if len(l.calls) < 200 {
		return false
	}
	if until == nil {
		return true
	}
	select {
	case <-until:
		return true
	default:
		return false
	}
}

// call makes one allowed call and, after every tenth, parks one and
// rejects it.
func (l *latencies) call(ctx context.Context, t *testing.T, s *session.Session) {
	t0 := time.Now()
	out := s.GatewayCall(ctx, session.GatewayCall{Client: "bystander", Name: "notes__read_note",
		Arguments: map[string]any{"text": "hi"}})
	l.calls = append(l.calls, ms(time.Since(t0)))
	if out.Decision != session.GatewayAllowed {
		t.Fatalf("call %d: %+v", len(l.calls), out)
	}
	if len(l.calls)%10 != 0 {
		return
	}
	parked := s.GatewayCall(ctx, session.GatewayCall{Client: "bystander", Name: "notes__write_note",
		Arguments: map[string]any{"text": "hi"}})
	t0 = time.Now()
	if err := s.GatewayDecide(parked.ID, false, "alice", ""); err != nil {
		t.Fatal(err)
	}
	l.rejects = append(l.rejects, ms(time.Since(t0)))
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// pct is the p-th percentile (nearest rank) of ms.
func pct(ms []float64, p int) float64 {
	s := slices.Clone(ms)
	slices.Sort(s)
	return s[max((len(s)*p+99)/100-1, 0)]
}
