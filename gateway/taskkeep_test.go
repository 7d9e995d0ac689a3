package gateway_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/session"
)

// A client making 120 task-augmented calls whose results are 1 MiB each,
// and never fetching them, does not make the gateway hold them all: it
// keeps at most serve.task_results_max_bytes of them, the oldest dropped
// first. tasks/result of a dropped one is an error naming the limits; the
// latest is still there.
func TestTaskResultsAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long (120 task results of 1 MiB): make test-e2e runs it")
	}
	up := server.NewMCPServer("big", "1")
	mib := strings.Repeat("y", 1<<20)
	up.AddTool(mcp.NewTool("big"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(mib), nil
	})
	r := newRig(t, gateway.Options{}, session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up})
	c := r.connectAt(t, "2025-11-25", "tasker", nil)

	before := heapInUse()
	var ids []string
	for i := range 120 {
		ids = append(ids, taskCall(t, c, i, "up__big"))
	}
	held := heapInUse() - before
	t.Logf("120 unfetched task results of 1 MiB: the heap grew by %.1f MiB", float64(held)/(1<<20))
	if bound := 3 * gateway.DefaultLimits.TaskResultBytes; held > bound {
		t.Errorf("the heap grew by %d bytes holding the results; want at most %d (3 × serve.task_results_max_bytes)", held, bound)
	}

	_, err := c.TaskResult(bounded(t), mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: ids[0]}})
	want := "the result of task " + ids[0] + " is no longer kept: latch serve keeps the results of at most 256 tasks and 33554432 bytes of them (serve.task_results_max, serve.task_results_max_bytes)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("tasks/result of the first task: %v; want %q", err, want)
	}
	res, err := c.TaskResult(bounded(t), mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: ids[119]}})
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("tasks/result of the last task: %v %+v", err, res)
	}
	if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != mib {
		t.Errorf("tasks/result of the last task: not the tool's 1 MiB")
	}
}

// Past serve.task_results_max results kept, the oldest is dropped, its
// tasks/get an error naming the limit; the others are kept.
func TestTaskResultsAreBoundedByCount(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := newRig(t, gateway.Options{Limits: gateway.Limits{TaskResults: 2}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.connectAt(t, "2025-11-25", "tasker", nil)
	ids := []string{taskCall(t, c, 0, "up__echo"), taskCall(t, c, 1, "up__echo"), taskCall(t, c, 2, "up__echo")}
	_, err := c.GetTask(bounded(t), mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: ids[0]}})
	if err == nil || !strings.Contains(err.Error(), "at most 2 tasks") || !strings.Contains(err.Error(), "serve.task_results_max") {
		t.Errorf("tasks/get of the oldest of 3 with 2 kept: %v; want an error naming the limit", err)
	}
	for _, id := range ids[1:] {
		if got, err := c.GetTask(bounded(t), mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}}); err != nil || got.Status != mcp.TaskStatusCompleted {
			t.Errorf("tasks/get of a kept task: %v %+v", err, got)
		}
	}
}

// taskCall makes a task-augmented tools/call of tool (request id i) and
// returns its task's id.
func taskCall(t *testing.T, c *client.Client, i int, tool string) string {
	t.Helper()
	resp, err := c.GetTransport().SendRequest(bounded(t), transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(int64(1000 + i)), Method: string(mcp.MethodToolsCall),
		Params: map[string]any{"name": tool, "arguments": map[string]any{}, "task": map[string]any{}}})
	if err != nil || resp.Error != nil {
		t.Fatalf("task call %d: %v %+v", i, err, resp)
	}
	var created mcp.CreateTaskResult
	if err := json.Unmarshal(resp.Result, &created); err != nil || created.Task.TaskId == "" {
		t.Fatalf("task call %d: %v, %.300s", i, err, resp.Result)
	}
	return created.Task.TaskId
}

// heapInUse is the bytes the heap holds after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// bounded is a context ended with the test, or after a minute.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
