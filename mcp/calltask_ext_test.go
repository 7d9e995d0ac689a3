package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
)

// extTaskHTTP serves ts (the 2026-07-28 tasks extension) over HTTP and
// returns a config of it with protocol auto.
func extTaskHTTP(t *testing.T, ts *mcptestutil.ExtTaskServer) ServerConfig {
	t.Helper()
	h := httptest.NewServer(ts.Handler())
	t.Cleanup(h.Close)
	return ServerConfig{Name: "tasks", Transport: TransportHTTP, URL: h.URL + "/mcp", Timeout: 5 * time.Second}
}

// TestExtTaskCallPollsToItsResult: on 2026-07-28, a server offering the
// tasks extension runs a tool that requires a task as one: latch declares
// the extension on that call, hands out the task id first, polls
// tasks/get (naming the task in Mcp-Name) and gives the model the result
// inlined in the last one.
func TestExtTaskCallPollsToItsResult(t *testing.T) {
	ts := mcptestutil.NewExtTaskServer(600*time.Millisecond, "")
	m, ev := startFake(t, Options{}, extTaskHTTP(t, ts))
	if st := waitReady(t, m, "tasks", 10*time.Second); st.ProtocolVersion != ProtocolModern {
		t.Fatalf("spoken to on %q", st.ProtocolVersion)
	}
	res, err := m.Call(context.Background(), "tasks__slow", nil, "c1")
	if err != nil || res.Text != "slow done 1" {
		t.Fatalf("slow: %v, %+v", err, res)
	}
	sts := taskStatuses(ev, "c1")
	created := ts.Created()
	if len(sts) < 2 || !sts[0].Started || len(created) != 1 || sts[0].TaskID != created[0] {
		t.Fatalf("statuses %+v, server created %v", sts, created)
	}
	if last := sts[len(sts)-1]; last.Status != "completed" {
		t.Fatalf("last status %+v", last)
	}
	for _, name := range ts.Names() {
		if name != created[0] {
			t.Fatalf("a tasks/* request named %q in Mcp-Name, want %q", name, created[0])
		}
	}
}

// TestExtTaskEndsSaySo: a task the server reports failed is an error with
// the server's message (its credential redacted); one that waits for
// input latch does not offer (no forms here) is cancelled on the server
// and says why, instead of waiting forever.
func TestExtTaskEndsSaySo(t *testing.T) {
	const token = "tok-ext-task-secret-41"
	ts := mcptestutil.NewExtTaskServer(time.Second, mcptestutil.Plant(token))
	cfg := extTaskHTTP(t, ts)
	cfg.Token = token
	m, ev := startFake(t, Options{}, cfg)
	waitReady(t, m, "tasks", 10*time.Second)
	_, err := m.Call(context.Background(), "tasks__broken", nil, "c1")
	if !errors.Is(err, ErrTaskFailed) || !strings.Contains(err.Error(), "it broke") || strings.Contains(err.Error(), token) {
		t.Fatalf("broken: %v, want the task failed, with its message redacted", err)
	}
	_, err = m.Call(context.Background(), "tasks__ask", nil, "c2")
	if !errors.Is(err, ErrTaskCancelled) || !strings.Contains(err.Error(), "not answered") {
		t.Fatalf("ask: %v, want cancelled, saying why", err)
	}
	created := ts.Created()
	if got := ts.Cancelled(); len(got) != 1 || got[0] != created[1] {
		t.Fatalf("server cancelled %v, want [%s]", got, created[1])
	}
	if sts := taskStatuses(ev, "c2"); sts[len(sts)-1].Status != "cancelled" {
		t.Fatalf("last status %+v", sts[len(sts)-1])
	}
}

// TestExtTaskCancelledOnTheServer: Esc on a task call of the extension
// sends tasks/cancel: the server cancels that task, and the call says so.
func TestExtTaskCancelledOnTheServer(t *testing.T) {
	ts := mcptestutil.NewExtTaskServer(time.Minute, "")
	m, ev := startFake(t, Options{}, extTaskHTTP(t, ts))
	waitReady(t, m, "tasks", 10*time.Second)
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), "tasks__slow", nil, "c1")
		done <- err
	}()
	id := waitTaskStarted(t, ev, "c1")
	if n := m.CancelCalls(); n != 1 {
		t.Fatalf("CancelCalls: %d", n)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatal("the cancelled task call did not return")
	}
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, ErrTaskCancelled) {
		t.Fatalf("err %v, want cancelled and the task cancelled", err)
	}
	if got := ts.Cancelled(); len(got) != 1 || got[0] != id {
		t.Fatalf("server cancelled %v, want [%s]", got, id)
	}
}

// TestExtTaskResumedIsPolledNotCalled: a second manager (latch after a
// restart) given the task id gets that task's result from tasks/get: the
// tool ran once.
func TestExtTaskResumedIsPolledNotCalled(t *testing.T) {
	ts := mcptestutil.NewExtTaskServer(time.Second, "")
	cfg := extTaskHTTP(t, ts)
	first, ev := startFake(t, Options{}, cfg)
	waitReady(t, first, "tasks", 10*time.Second)
	go func() { _, _ = first.Call(context.Background(), "tasks__slow", nil, "c1") }()
	id := waitTaskStarted(t, ev, "c1")
	first.CloseAll()

	second, _ := startFake(t, Options{}, cfg)
	waitReady(t, second, "tasks", 10*time.Second)
	res, err := second.ResumeTask(context.Background(), "tasks__slow", id, "c1")
	if err != nil || res.Text != "slow done 1" {
		t.Fatalf("resume: %v, %+v", err, res)
	}
	if n := ts.Runs(); n != 1 {
		t.Fatalf("the tool ran %d times", n)
	}
}

// TestExtTaskInputAsksThePerson: a task of the extension waiting for a
// form (input_required) has it answered through the same form path as
// any server request; the answer goes back with tasks/update, once, and
// the task's result follows.
func TestExtTaskInputAsksThePerson(t *testing.T) {
	ts := mcptestutil.NewExtTaskServer(time.Second, "")
	var asked atomic.Int32
	elicit := func(_ context.Context, server string, req ElicitRequest) (ElicitResponse, error) {
		asked.Add(1)
		if server != "tasks" || req.Message != "your name?" {
			return ElicitResponse{}, fmt.Errorf("asked %q by %q", req.Message, server)
		}
		return ElicitResponse{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
	}
	m, ev := startFake(t, Options{Elicit: elicit}, extTaskHTTP(t, ts))
	waitReady(t, m, "tasks", 10*time.Second)
	res, err := m.Call(context.Background(), "tasks__ask", nil, "c1")
	if err != nil || res.Text != "hello Ada (accept)" {
		t.Fatalf("ask: %v, %+v", err, res)
	}
	if asked.Load() != 1 || ts.Updates() != 1 {
		t.Fatalf("the person was asked %d times, %d updates sent; want once each", asked.Load(), ts.Updates())
	}
	var sawInput bool
	for _, s := range taskStatuses(ev, "c1") {
		sawInput = sawInput || s.Status == "input_required"
	}
	if !sawInput {
		t.Fatalf("the card never showed the task waiting for input: %+v", taskStatuses(ev, "c1"))
	}
	// A server asking more forms at once than a person can be asked:
	// none is asked, and the task is cancelled on the server, saying why.
	_, err = m.Call(context.Background(), "tasks__flood", nil, "c3")
	if !errors.Is(err, ErrTaskCancelled) || !strings.Contains(err.Error(), "at once") || asked.Load() != 1 {
		t.Fatalf("flood: %v (asked %d times in all)", err, asked.Load())
	}
	// Asked before the task is created (an InputRequiredResult): answered,
	// and the call repeated with the answer and the server's state.
	res, err = m.Call(context.Background(), "tasks__named", nil, "c2")
	if err != nil || res.Text != "hello Ada" || asked.Load() != 2 {
		t.Fatalf("named: %v, %+v (asked %d times in all)", err, res, asked.Load())
	}
}

// TestExtTaskServerKeepsTheNewEra: on protocol auto, a server that offers
// the tasks extension is spoken to on 2026-07-28, where latch runs its
// tasks, even when it offers 2025-11-25's tasks too.
func TestExtTaskServerKeepsTheNewEra(t *testing.T) {
	ts := mcptestutil.NewTaskServer(time.Second, "")
	mcpserver.WithExtensions(map[string]any{mcptestutil.ExtTasksID: map[string]any{}})(ts.MCPServer)
	m, _ := startFake(t, Options{}, taskHTTP(t, ts, ProtocolAuto, true))
	if st := waitReady(t, m, "tasks", 10*time.Second); st.ProtocolVersion != ProtocolModern {
		t.Fatalf("spoken to on %q, want %q", st.ProtocolVersion, ProtocolModern)
	}
}
