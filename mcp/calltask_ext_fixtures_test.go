package mcp

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestExtTaskSuiteFixtures: latch's client of the tasks extension against
// the conformance suite's fixture tools, which mcptestutil.ExtTaskServer
// serves as the suite checks them (TestExtTaskServerConformance): a
// tool's own error from a completed task reaches the model as that
// tool's error result (not a failed task); a tool that allows a task runs
// as one, or gives its result at once when the server runs it so; a tool that never runs as a task is called as any other; two
// forms pending at once are each asked once; a boolean form; input asked
// before the task is created.
func TestExtTaskSuiteFixtures(t *testing.T) {
	ts := mcptestutil.NewExtTaskServer(300*time.Millisecond, "")
	var asked atomic.Int32
	elicit := func(_ context.Context, _ string, req ElicitRequest) (ElicitResponse, error) {
		asked.Add(1)
		if strings.HasPrefix(req.Message, "delete ") {
			return ElicitResponse{Action: ElicitAccept, Content: map[string]any{"confirm": true}}, nil
		}
		return ElicitResponse{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
	}
	m, _ := startFake(t, Options{Elicit: elicit}, extTaskHTTP(t, ts))
	waitReady(t, m, "tasks", 10*time.Second)
	ctx := context.Background()
	for _, c := range []struct {
		tool    string
		args    map[string]any
		want    string
		isError bool
		task    bool
		asks    int32
	}{
		{"failing_job", nil, "the job failed", true, true, 0},
		{"slow_compute", map[string]any{"seconds": 0.2, "label": "sum"}, "computed sum after 0.2s", false, true, 0},
		{"slow_compute", map[string]any{"seconds": 0, "label": "now"}, "computed now after 0s", false, false, 0},
		{"greet", map[string]any{"name": "Ada"}, "Hello, Ada!", false, false, 0},
		{"multi_input", nil, "hello Ada (accept)", false, true, 2},
		{"confirm_delete", map[string]any{"filename": "notes.txt"}, "deleted notes.txt", false, true, 1},
		{"test_tool_with_task", nil, "hello Ada", false, true, 1},
	} {
		before, askedBefore := len(ts.Created()), asked.Load()
		res, err := m.Call(ctx, "tasks__"+c.tool, c.args, c.tool)
		if err != nil || res.Text != c.want || res.IsError != c.isError {
			t.Fatalf("%s: %v, %+v; want %q (isError %v)", c.tool, err, res, c.want, c.isError)
		}
		if ran := len(ts.Created()) > before; ran != c.task {
			t.Errorf("%s ran as a task: %v, want %v", c.tool, ran, c.task)
		}
		if n := asked.Load() - askedBefore; n != c.asks {
			t.Errorf("%s asked the person %d times, want %d", c.tool, n, c.asks)
		}
	}
}

// TestExtTaskUnknownSaysSo: a task the server does not know (it
// restarted) is refused with -32602 and HTTP 400, as mcp-go's stateless
// server answers an invalid request: a resumed call says its outcome is
// unknown at once, instead of taking the 400 for a lost poll.
func TestExtTaskUnknownSaysSo(t *testing.T) {
	ts := mcptestutil.NewExtTaskServer(time.Second, "")
	m, _ := startFake(t, Options{}, extTaskHTTP(t, ts))
	waitReady(t, m, "tasks", 10*time.Second)
	_, err := m.ResumeTask(context.Background(), "tasks__slow", "ext-gone", "c1")
	if !errors.Is(err, ErrTaskUnknown) {
		t.Fatalf("resume of an unknown task: %v, want ErrTaskUnknown", err)
	}
}
