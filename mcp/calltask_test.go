package mcp

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"

	"latch/mcp/mcptestutil"
)

// taskHTTP serves ts over streamable HTTP and returns a config of it on
// era (ProtocolLegacy or ProtocolModern). Stateful, mcp-go ties a task to
// the HTTP session that created it; stateless, any client may poll it.
func taskHTTP(t *testing.T, ts *mcptestutil.TaskServer, era string, stateless bool) ServerConfig {
	t.Helper()
	h := servertest.NewTestStreamableHTTPServer(ts.MCPServer, mcpserver.WithStateLess(stateless))
	t.Cleanup(h.Close)
	return ServerConfig{Name: "tasks", Transport: TransportHTTP, URL: h.URL + "/mcp", Protocol: era,
		Timeout: 5 * time.Second}
}

// taskStatuses are the TaskStatus events of a call, in order.
func taskStatuses(ev *events, callID string) []TaskStatus {
	var out []TaskStatus
	for _, e := range eventList(ev) {
		if ts, ok := e.(TaskStatus); ok && ts.CallID == callID {
			out = append(out, ts)
		}
	}
	return out
}

// waitTaskStarted waits for the call's first TaskStatus and returns its
// task id.
func waitTaskStarted(t *testing.T, ev *events, callID string) string {
	t.Helper()
	var id string
	mcptestutil.WaitFor(t, 10*time.Second, "the task's start", func() bool {
		for _, s := range taskStatuses(ev, callID) {
			if s.Started {
				id = s.TaskID
				return true
			}
		}
		return false
	})
	return id
}

// TestTaskCallPollsToItsResult: a tool that requires a task, and one that
// allows it on a server offering tasks, run as tasks: the task's id is
// handed out first (Started), its status as polled, and the result is the
// tool's.
func TestTaskCallPollsToItsResult(t *testing.T) {
	ts := mcptestutil.NewTaskServer(600*time.Millisecond, "")
	m, ev := startFake(t, Options{}, taskHTTP(t, ts, ProtocolLegacy, false))
	waitReady(t, m, "tasks", 10*time.Second)
	res, err := m.Call(context.Background(), "tasks__slow", nil, "c1")
	if err != nil || res.Text != "slow done 1" {
		t.Fatalf("slow: %v, %+v", err, res)
	}
	sts := taskStatuses(ev, "c1")
	created := ts.Created()
	if len(sts) < 2 || !sts[0].Started || len(created) != 1 || sts[0].TaskID != created[0] {
		t.Fatalf("statuses %+v, server created %v", sts, created)
	}
	if last := sts[len(sts)-1]; last.Status != "completed" || last.Tool != "tasks__slow" {
		t.Fatalf("last status %+v", last)
	}
	if res, err := m.Call(context.Background(), "tasks__maybe", nil, "c2"); err != nil || res.Text != "maybe done" {
		t.Fatalf("maybe: %v, %+v", err, res)
	}
	if len(taskStatuses(ev, "c2")) == 0 || len(ts.Created()) != 2 {
		t.Fatalf("maybe did not run as a task: %v", ts.Created())
	}
}

// TestTaskOnTheStatelessEra: on 2026-07-28 (where tasks are an extension
// latch does not speak) a tool that allows a task is called as any other,
// and one that requires it is refused before anything is sent, saying
// what to do.
func TestTaskOnTheStatelessEra(t *testing.T) {
	ts := mcptestutil.NewTaskServer(time.Second, "")
	m, ev := startFake(t, Options{}, taskHTTP(t, ts, ProtocolModern, false))
	waitReady(t, m, "tasks", 10*time.Second)
	if res, err := m.Call(context.Background(), "tasks__maybe", nil, "c1"); err != nil || res.Text != "maybe done" {
		t.Fatalf("maybe: %v, %+v", err, res)
	}
	_, err := m.Call(context.Background(), "tasks__slow", nil, "c2")
	if !errors.Is(err, ErrTaskEra) || !strings.Contains(err.Error(), `"protocol": "2025-11-25"`) {
		t.Fatalf("slow: %v, want refused for the era", err)
	}
	if n, created := ts.Runs(), ts.Created(); n != 0 || len(created) != 0 || len(taskStatuses(ev, "c2")) != 0 {
		t.Fatalf("runs %d, tasks %v", n, created)
	}
}

// TestTaskCallCancelledOnTheServer: stopping a task call (Esc) sends
// tasks/cancel: the server cancels that task, and the call says so.
func TestTaskCallCancelledOnTheServer(t *testing.T) {
	ts := mcptestutil.NewTaskServer(time.Minute, "")
	m, ev := startFake(t, Options{}, taskHTTP(t, ts, ProtocolLegacy, false))
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
	sts := taskStatuses(ev, "c1")
	if last := sts[len(sts)-1]; last.Status != "cancelled" {
		t.Fatalf("last status %+v", last)
	}
}

// TestTaskFailedSaysSo: a task the server reports failed is an error
// saying so, with the server's message, its credential redacted.
func TestTaskFailedSaysSo(t *testing.T) {
	const token = "tok-task-secret-93"
	ts := mcptestutil.NewTaskServer(time.Second, mcptestutil.Plant(token))
	cfg := taskHTTP(t, ts, ProtocolLegacy, false)
	cfg.Token = token
	m, _ := startFake(t, Options{}, cfg)
	waitReady(t, m, "tasks", 10*time.Second)
	_, err := m.Call(context.Background(), "tasks__broken", nil, "c1")
	if !errors.Is(err, ErrTaskFailed) || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("err %v, want the task failed", err)
	}
	if strings.Contains(err.Error(), token) {
		t.Fatalf("the credential reached the error: %q", err)
	}
}

// TestTaskResumedIsPolledNotCalled: a second manager (latch after a
// restart) given the task id of a call the first started gets that
// task's result: the tool ran once. A server that ties a task to the HTTP
// session that created it (mcp-go, stateful) has forgotten it for the
// new session: the task is unknown, and the error says so.
func TestTaskResumedIsPolledNotCalled(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		t.Run(map[bool]string{true: "stateless", false: "stateful"}[stateless], func(t *testing.T) {
			ts := mcptestutil.NewTaskServer(time.Second, "")
			cfg := taskHTTP(t, ts, ProtocolLegacy, stateless)
			first, ev := startFake(t, Options{}, cfg)
			waitReady(t, first, "tasks", 10*time.Second)
			go func() { _, _ = first.Call(context.Background(), "tasks__slow", nil, "c1") }()
			id := waitTaskStarted(t, ev, "c1")
			first.CloseAll()

			second, _ := startFake(t, Options{}, cfg)
			waitReady(t, second, "tasks", 10*time.Second)
			res, err := second.ResumeTask(context.Background(), "tasks__slow", id, "c1")
			if !stateless {
				if !errors.Is(err, ErrTaskUnknown) {
					t.Fatalf("resume: %v, %+v; want the task unknown", err, res)
				}
				return
			}
			if err != nil || res.Text != "slow done 1" {
				t.Fatalf("resume: %v, %+v", err, res)
			}
			if n := ts.Runs(); n != 1 {
				t.Fatalf("the tool ran %d times", n)
			}
		})
	}
}

// TestTaskInputRequiredAsksThePerson: server-everything's research task,
// asked an ambiguous topic, needs a form answered (input_required); its
// request comes with tasks/result, which latch calls then: the person's
// answer reaches the report.
func TestTaskInputRequiredAsksThePerson(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	var asked atomic.Int32
	elicit := func(_ context.Context, _ string, req ElicitRequest) (ElicitResponse, error) {
		asked.Add(1)
		return ElicitResponse{Action: ElicitAccept, Content: map[string]any{"interpretation": "the person's pick"}}, nil
	}
	for _, transport := range []string{TransportStdio, TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			m, ev, _ := peerConnectOpts(t, Options{Elicit: elicit}, peerEverything(t, bin, transport, 5*time.Second))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := m.Call(ctx, "every__simulate-research-query", map[string]any{"topic": "peers", "ambiguous": true}, "c1")
			if err != nil || !strings.Contains(res.Text, "the person's pick") {
				t.Fatalf("ambiguous research: %v, %+v; statuses %+v", err, res, taskStatuses(ev, "c1"))
			}
		})
	}
	if asked.Load() < 2 {
		t.Fatalf("the person was asked %d times, want once per transport", asked.Load())
	}
}

// TestTaskServerSpokenToOnTheTaskEra: on protocol auto, a server that
// offers tasks for tools/call and speaks 2025-11-25 too is spoken to on
// 2025-11-25, where latch runs tasks: its tool that requires a task runs
// as one instead of being refused; pinned to 2026-07-28 it stays there.
func TestTaskServerSpokenToOnTheTaskEra(t *testing.T) {
	for _, protocol := range []string{"", ProtocolAuto} {
		ts := mcptestutil.NewTaskServer(300*time.Millisecond, "")
		m, _ := startFake(t, Options{}, taskHTTP(t, ts, protocol, true))
		if st := waitReady(t, m, "tasks", 10*time.Second); st.ProtocolVersion != ProtocolLegacy {
			t.Fatalf("protocol %q: spoken to on %q, want %q", protocol, st.ProtocolVersion, ProtocolLegacy)
		}
		if res, err := m.Call(context.Background(), "tasks__slow", nil, "c1"); err != nil || res.Text != "slow done 1" {
			t.Fatalf("slow: %v, %+v", err, res)
		}
		if len(ts.Created()) != 1 {
			t.Fatalf("not run as a task: %v", ts.Created())
		}
	}
	ts := mcptestutil.NewTaskServer(300*time.Millisecond, "")
	m, _ := startFake(t, Options{}, taskHTTP(t, ts, ProtocolModern, true))
	if st := waitReady(t, m, "tasks", 10*time.Second); st.ProtocolVersion != ProtocolModern {
		t.Fatalf("pinned: spoken to on %q", st.ProtocolVersion)
	}
}
