package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"latch/permissions"
	"latch/session"
)

// quota is a GatewayCall.Admit that holds at most max calls, and counts
// the calls it holds.
type quota struct {
	mu        sync.Mutex
	max, held int
	sizes     []int64
}

func (q *quota) admit(size int64) (func(), string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sizes = append(q.sizes, size)
	if q.held >= q.max {
		return nil, "over the quota"
	}
	q.held++
	var once sync.Once
	return func() { once.Do(func() { q.mu.Lock(); q.held--; q.mu.Unlock() }) }, ""
}

func (q *quota) holding() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held
}

// A call that would park is admitted first, told the bytes it would log;
// one refused leaves no trace (no event, nothing parked); the room of one
// admitted is given back once it no longer waits, however it ends
// (decided, withdrawn, expired). A call that runs at once is not asked.
func TestGatewayParkQuotaAdmitsAndGivesBack(t *testing.T) {
	h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{
		ServerAllow: map[string][]string{"notes": {"read_note"}}, Mode: permissions.Approve}})
	q := &quota{max: 1}
	ctx := bounded(t)
	call := func(name string, ttl time.Duration) session.GatewayOutcome {
		return h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: name,
			Arguments: map[string]any{"text": strings.Repeat("z", 1000)}, TTL: ttl, Admit: q.admit})
	}

	first := call("notes__write_note", 0)
	if first.Decision != session.GatewayParked || q.holding() != 1 {
		t.Fatalf("first call: %+v, %d held", first, q.holding())
	}
	if q.sizes[0] < 2000 {
		t.Errorf("a call of 1000 bytes of arguments is told %d bytes: they are logged twice", q.sizes[0])
	}
	refused := call("notes__write_note", 0)
	if refused.Decision != session.GatewayLimited || refused.Reason != "over the quota" || refused.ID != "" {
		t.Errorf("the call over the quota: %+v", refused)
	}
	if got := call("notes__read_note", 0); got.Decision != session.GatewayAllowed || len(q.sizes) != 2 {
		t.Errorf("an allowed call: %+v, admit asked %d times (want 2: it is not asked)", got, len(q.sizes))
	}
	evs := h.r.until(func(e session.Event) bool { _, ok := e.(*session.ToolResultEvent); return ok })
	if calls := of[*session.ToolCallEvent](evs); len(calls) != 2 || calls[0].CallID != first.ID {
		t.Errorf("tool_call events %+v; want the parked call's and the allowed one's only", calls)
	}
	if n := len(h.sess.Approvals()); n != 1 {
		t.Errorf("%d calls wait; want 1", n)
	}

	ends := []func(id string){
		func(id string) { _ = h.sess.GatewayDecide(id, false, "alice", "") },
		func(id string) { _ = h.sess.GatewayWithdraw(id, "its client", "tasks/cancel") },
		nil, // expires
	}
	for i, end := range ends {
		if i > 0 {
			ttl := time.Duration(0)
			if end == nil {
				ttl = time.Millisecond
			}
			first = call("notes__write_note", ttl)
			if first.Decision != session.GatewayParked {
				t.Fatalf("end %d: the call did not park: %+v", i, first)
			}
		}
		if end != nil {
			end(first.ID)
		}
		awaitSettled(t, h.sess, first.ID)
		if n := q.holding(); n != 0 {
			t.Errorf("end %d: %d calls still held once the call stopped waiting", i, n)
		}
	}
}

// In a chat's session, a call asked of the person and answered yes runs:
// its room is given back at once.
func TestGatewayParkQuotaGivenBackWhenTheAskedCallRuns(t *testing.T) {
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	q := &quota{max: 1}
	out := make(chan session.GatewayOutcome, 1)
	go func() {
		out <- h.sess.GatewayCall(context.Background(), session.GatewayCall{Client: "goose", Name: "notes__write_note",
			Arguments: map[string]any{"text": "hi"}, Ask: time.Minute, Admit: q.admit})
	}()
	var id string
	h.r.until(func(e session.Event) bool {
		if p, ok := e.(*session.PermissionEvent); ok && p.Decision == "asked" {
			id = p.CallID
		}
		return id != ""
	})
	if q.holding() != 1 {
		t.Errorf("while asked: %d held; want the call's room taken", q.holding())
	}
	if !h.sess.AnswerAsk(id, session.AnswerYes) {
		t.Fatal("no asked call")
	}
	if got := <-out; got.Decision != session.GatewayAllowed || q.holding() != 0 {
		t.Errorf("answered yes: %+v, %d held; want it run and its room given back", got, q.holding())
	}
}

// The bytes a call is admitted with bound what its parking adds to the
// session log, even for arguments the log writes longer than JSON does
// (C1 controls, each escaped as \u0085).
func TestGatewayParkQuotaSizeBoundsTheLog(t *testing.T) {
	dir := t.TempDir()
	h := newToolHarness(t, session.Options{NonInteractive: true, LogDir: dir, Policy: permissions.Policy{Mode: permissions.Approve}})
	q := &quota{max: 10}
	path := filepath.Join(dir, h.sess.ID()+".jsonl")
	for _, text := range []string{strings.Repeat("\u0085", 5000), strings.Repeat("<&>", 5000), strings.Repeat("\x01", 5000)} {
		before := size(t, path)
		out := h.sess.GatewayCall(bounded(t), session.GatewayCall{Client: "ci", Name: "notes__write_note",
			Arguments: map[string]any{"text": text}, Admit: q.admit})
		if out.Decision != session.GatewayParked {
			t.Fatalf("call: %+v", out)
		}
		h.r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
		if grown, told := size(t, path)-before, q.sizes[len(q.sizes)-1]; grown > told {
			t.Errorf("%.10q…: the log grew by %d bytes; admit was told %d", text, grown, told)
		}
	}
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
