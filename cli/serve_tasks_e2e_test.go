package cli

// End-to-end tests of parked calls served as MCP tasks (protocol
// 2025-11-25), with the official TypeScript SDK client's own task loop
// (callToolStream: tasks/get until done, then tasks/result):
// testdata/npm/sdkclient/tasks.mjs.

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// taskOut is what tasks.mjs prints.
type taskOut struct {
	Capabilities map[string]any   `json:"capabilities"`
	Tools        []map[string]any `json:"tools"`
	Steps        []struct {
		Messages []struct {
			Type   string      `json:"type"`
			Task   *taskState  `json:"task"`
			Result *toolResult `json:"result"`
			Error  string      `json:"error"`
		} `json:"messages"`
		TaskID    string      `json:"taskId"`
		Cancelled *taskState  `json:"cancelled"`
		Task      *taskState  `json:"task"`
		Result    *toolResult `json:"result"`
		Error     string      `json:"error"`
	} `json:"steps"`
	ConnectError string `json:"connectError"`
}

// taskState is a task as tasks/get (and the others) report it.
type taskState struct {
	TaskID        string   `json:"taskId"`
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage"`
	CreatedAt     string   `json:"createdAt"`
	PollInterval  *float64 `json:"pollInterval"`
}

// toolResult is a tools/call result, as tasks/result returns it.
type toolResult struct {
	Content           []map[string]any `json:"content"`
	StructuredContent map[string]any   `json:"structuredContent"`
	IsError           bool             `json:"isError"`
	Meta              map[string]any   `json:"_meta"`
}

// startTaskClient starts tasks.mjs with plan in the rig's environment;
// wait waits for it and parses what it printed.
func startTaskClient(t *testing.T, r *promptRig, plan map[string]any) (wait func() taskOut) {
	t.Helper()
	c := startNodeClient(t, r, "@modelcontextprotocol/sdk", "sdkclient/tasks.mjs", plan)
	return func() taskOut {
		t.Helper()
		var res taskOut
		c.finish(t, &res)
		if res.ConnectError != "" {
			t.Fatalf("tasks.mjs could not connect: %s", res.ConnectError)
		}
		t.Logf("tasks.mjs: %s", c.out.String())
		return res
	}
}

// taskClient runs tasks.mjs with plan and returns what it printed.
func taskClient(t *testing.T, r *promptRig, plan map[string]any) taskOut {
	t.Helper()
	return startTaskClient(t, r, plan)()
}

// listedID waits until latch approvals, run as a person would in another
// terminal, lists a waiting call, and returns its id.
func listedID(t *testing.T, r *promptRig) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(r.run("", "approvals").stdout, "\n") {
			if id, _, _ := strings.Cut(line, " "); strings.HasPrefix(id, "gw_") && strings.Contains(line, "mem__create_entities") {
				return id
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatal("latch approvals listed no waiting call within 90 s")
	return ""
}

// parkTaskOverHTTP starts latch serve --listen in ask mode and has the SDK
// client call create_entities as a task (its own task loop, which waits
// until the task is done). It returns the rig, the plan's http part, the
// running client, and the id of the call once latch approvals lists it.
func parkTaskOverHTTP(t *testing.T, steps ...any) (*promptRig, map[string]any, func() taskOut, string) {
	t.Helper()
	const token = "task-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"}}, true)
	srv := startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	wait := startTaskClient(t, r, map[string]any{"http": httpPlan, "clientName": "claude-e2e",
		"steps": append([]any{map[string]any{"stream": createAlice}}, steps...)})
	return r, httpPlan, wait, listedID(t, r)
}

// last is the last message of a stream step.
func lastMessage(t *testing.T, res taskOut, step int) (string, *toolResult, string) {
	t.Helper()
	if len(res.Steps) <= step || len(res.Steps[step].Messages) == 0 {
		t.Fatalf("step %d has no messages: %+v", step, res)
	}
	m := res.Steps[step].Messages[len(res.Steps[step].Messages)-1]
	return m.Type, m.Result, m.Error
}

// A task-capable client's call that needs a person is a task at once,
// whose id is the invocation id and whose status says it waits for a
// person; approved by latch approve in another process, the SDK's task
// loop gets server-memory's real result; the write happened once, and
// tasks/get, tasks/result and latch_await_decision all say the same after.
func TestServeParkedTaskApprovedFromAnotherTerminal(t *testing.T) {
	t.Parallel()
	r, httpPlan, wait, id := parkTaskOverHTTP(t)
	peek := taskClient(t, r, map[string]any{"http": httpPlan, "steps": []any{map[string]any{"get": id}}})
	if got := peek.Steps[0].Task; got == nil || got.TaskID != id || got.Status != "working" ||
		!strings.Contains(got.StatusMessage, "waiting for a person's approval: latch approve "+id) {
		t.Errorf("tasks/get while it waits: %+v (%s)", got, peek.Steps[0].Error)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Fatalf("the call ran before anyone approved it (%d times)", n)
	}
	if ok := decideAsPerson(t, r, "approve", id); ok.code != 0 {
		t.Fatalf("latch approve (exit %d): %s", ok.code, ok.screen)
	}
	res := wait()
	want := map[string]any{"entities": []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}}}
	first := res.Steps[0].Messages[0]
	if first.Type != "taskCreated" || first.Task == nil || first.Task.TaskID != id || first.Task.Status != "working" {
		t.Errorf("the call's first answer: %+v, want a working task %s", first, id)
	}
	if typ, result, _ := lastMessage(t, res, 0); typ != "result" || result.IsError || !reflect.DeepEqual(result.StructuredContent, want) {
		t.Errorf("the task loop ended with %s %+v, want server-memory's result", typ, result)
	}
	var create map[string]any
	for _, tool := range res.Tools {
		if tool["name"] == "mem__create_entities" {
			create = tool
		}
	}
	if ex, _ := create["execution"].(map[string]any); ex["taskSupport"] != "optional" {
		t.Errorf("a tool whose calls park is not listed as taking tasks: %v", create)
	}

	after := taskClient(t, r, map[string]any{"http": httpPlan, "steps": []any{
		map[string]any{"get": id}, map[string]any{"result": id}, map[string]any{"await": id}}})
	if got := after.Steps[0].Task; got == nil || got.Status != "completed" {
		t.Errorf("tasks/get once done: %+v (%s)", got, after.Steps[0].Error)
	}
	for _, i := range []int{1, 2} {
		if got := after.Steps[i].Result; got == nil || got.IsError || !reflect.DeepEqual(got.StructuredContent, want) {
			t.Errorf("step %d (tasks/result, then latch_await_decision) once done: %+v (%s)", i, got, after.Steps[i].Error)
		}
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
	if b, _ := os.ReadFile(r.memFile); strings.Count(string(b), `"alice"`) != 1 {
		t.Errorf("the memory file does not hold alice exactly once:\n%s", b)
	}
}

// A task whose call a person rejects fails, saying why; tasks/result is
// the same {"denied": …} error latch_await_decision gives; it never ran.
func TestServeParkedTaskRejectedFromAnotherTerminal(t *testing.T) {
	t.Parallel()
	r, httpPlan, wait, id := parkTaskOverHTTP(t)
	if no := decideAsPerson(t, r, "reject", id, "--reason", "not today"); no.code != 0 {
		t.Fatalf("latch reject (exit %d): %s", no.code, no.screen)
	}
	res := wait()
	if typ, _, msg := lastMessage(t, res, 0); typ != "error" || !strings.Contains(msg, "failed") {
		t.Errorf("the task loop ended with %s %q, want the task failed", typ, msg)
	}
	after := taskClient(t, r, map[string]any{"http": httpPlan, "steps": []any{
		map[string]any{"get": id}, map[string]any{"result": id}}})
	if got := after.Steps[0].Task; got == nil || got.Status != "failed" || !strings.Contains(got.StatusMessage, "not today") {
		t.Errorf("tasks/get once rejected: %+v (%s)", got, after.Steps[0].Error)
	}
	if got := after.Steps[1].Result; got == nil || !got.IsError || !strings.Contains(got.StructuredContent["denied"].(string), "not today") {
		t.Errorf("tasks/result once rejected: %+v (%s)", got, after.Steps[1].Error)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a rejected call reached server-memory %d times", n)
	}
}

// A task no one decides in time fails as expired (over stdio), and the
// call never runs.
func TestServeParkedTaskExpires(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"},
		"serve": map[string]any{"approval_ttl": "1s"}}, true)
	res := taskClient(t, r, map[string]any{"stdio": r.serveStdio(), "steps": []any{
		map[string]any{"stream": createAlice}, map[string]any{"get": "@0"}, map[string]any{"result": "@0"}}})
	if typ, _, msg := lastMessage(t, res, 0); typ != "error" || !strings.Contains(msg, "failed") {
		t.Errorf("the task loop ended with %s %q, want the task failed", typ, msg)
	}
	if got := res.Steps[1].Task; got == nil || got.Status != "failed" || !strings.Contains(got.StatusMessage, "expired") {
		t.Errorf("tasks/get once expired: %+v (%s)", got, res.Steps[1].Error)
	}
	if got := res.Steps[2].Result; got == nil || got.StructuredContent["status"] != "expired" {
		t.Errorf("tasks/result once expired: %+v (%s)", got, res.Steps[2].Error)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("an expired call reached server-memory %d times", n)
	}
}

// A client that cancels its task withdraws the parked call: it never
// runs, the log says its client withdrew it, and a person can no longer
// approve it.
func TestServeParkedTaskCancelledByItsClient(t *testing.T) {
	t.Parallel()
	const token = "cancel-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"}}, true)
	srv := startServeHTTP(t, r, token)
	res := taskClient(t, r, map[string]any{"http": map[string]any{"url": srv.url, "token": token}, "steps": []any{
		map[string]any{"stream": createAlice, "cancel": true}, map[string]any{"get": "@0"}, map[string]any{"await": "@0"}}})
	id := res.Steps[0].TaskID
	if got := res.Steps[0].Cancelled; got == nil || got.TaskID != id || got.Status != "cancelled" {
		t.Errorf("tasks/cancel: %+v (%s)", got, res.Steps[0].Error)
	}
	if typ, _, msg := lastMessage(t, res, 0); typ != "error" || !strings.Contains(msg, "cancelled") {
		t.Errorf("the task loop ended with %s %q, want the task cancelled", typ, msg)
	}
	if got := res.Steps[1].Task; got == nil || got.Status != "cancelled" || !strings.Contains(got.StatusMessage, "never ran") {
		t.Errorf("tasks/get once cancelled: %+v (%s)", got, res.Steps[1].Error)
	}
	if got := res.Steps[2].Result; got == nil || !got.IsError || got.StructuredContent["withdrawn"] == nil {
		t.Errorf("latch_await_decision once cancelled: %+v (%s)", got, res.Steps[2].Error)
	}
	if no := decideAsPerson(t, r, "approve", id); no.code == 0 || no.asked || !strings.Contains(no.screen, "withdrawn by its client") {
		t.Errorf("approving a withdrawn call (exit %d, asked %v): %s", no.code, no.asked, no.screen)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a withdrawn call reached server-memory %d times", n)
	}
}

// After a restart (kill -9) the task of a parked call still answers:
// tasks/get says it waits, and once approved tasks/result returns the
// real result; it ran once.
func TestServeParkedTaskAnswersAfterRestart(t *testing.T) {
	t.Parallel()
	const token = "task-restart-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"}}, true)
	srv := startServeHTTP(t, r, token)
	res := taskClient(t, r, map[string]any{"http": map[string]any{"url": srv.url, "token": token}, "steps": []any{
		map[string]any{"stream": createAlice, "stop": true}}})
	id := res.Steps[0].TaskID
	if !strings.HasPrefix(id, "gw_") {
		t.Fatalf("the task's id %q is not an invocation id: %+v", id, res)
	}
	srv.kill(t)

	srv = startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	before := taskClient(t, r, map[string]any{"http": httpPlan, "steps": []any{map[string]any{"get": id}}})
	if got := before.Steps[0].Task; got == nil || got.Status != "working" || !strings.Contains(got.StatusMessage, "latch approve "+id) {
		t.Errorf("tasks/get after the restart: %+v (%s)", got, before.Steps[0].Error)
	}
	if ok := decideAsPerson(t, r, "approve", id); ok.code != 0 {
		t.Fatalf("latch approve after the restart (exit %d): %s", ok.code, ok.screen)
	}
	after := taskClient(t, r, map[string]any{"http": httpPlan, "steps": []any{
		map[string]any{"result": id}, map[string]any{"get": id}}})
	if got := after.Steps[0].Result; got == nil || got.IsError || !strings.Contains(got.Content[0]["text"].(string), `"alice"`) {
		t.Errorf("tasks/result after the restart: %+v (%s)", got, after.Steps[0].Error)
	}
	if got := after.Steps[1].Task; got == nil || got.Status != "completed" {
		t.Errorf("tasks/get once done: %+v (%s)", got, after.Steps[1].Error)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
}

// A call made as a task that the gate allows at once (read_graph is
// allow-listed) is a task already completed with the tool's result, which
// tasks/result returns again.
func TestServeTaskOfACallThatRunsAtOnce(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"}}, true)
	readGraph := map[string]any{"name": "mem__read_graph", "arguments": map[string]any{}}
	res := taskClient(t, r, map[string]any{"stdio": r.serveStdio(), "steps": []any{
		map[string]any{"stream": readGraph, "task": map[string]any{}}, map[string]any{"result": "@0"}}})
	first := res.Steps[0].Messages[0]
	if first.Type != "taskCreated" || first.Task == nil || first.Task.Status != "completed" || !strings.HasPrefix(first.Task.TaskID, "gw_") {
		t.Errorf("the call's first answer: %+v, want a completed task", first)
	}
	if typ, result, _ := lastMessage(t, res, 0); typ != "result" || result.IsError || result.StructuredContent["entities"] == nil {
		t.Errorf("the task loop ended with %s %+v, want read_graph's result", typ, result)
	}
	if got := res.Steps[1].Result; got == nil || got.IsError || got.StructuredContent["entities"] == nil {
		t.Errorf("tasks/result: %+v (%s)", got, res.Steps[1].Error)
	}
	if n := r.memCalls("read_graph"); n != 1 {
		t.Errorf("server-memory got %d read_graph calls, want 1", n)
	}
}
