package mcptestutil

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// extTool is one tool of an ExtTaskServer: how it runs as a task (start,
// given the new task and the call's arguments) and, for a tool that is
// not only a task, how it runs at once (sync). One table says which tools
// are tasks, for tools/list and for the requests the server answers.
type extTool struct {
	support mcp.TaskSupport // "" for a tool that never runs as a task
	start   func(ts *ExtTaskServer, st *extTaskState, args map[string]any)
	sync    func(ctx context.Context, args map[string]any) *mcp.CallToolResult
	// mrtr names the input asked before the task is created (an
	// InputRequiredResult with a requestState); "" for none.
	mrtr string
}

// extTools are the server's tools: latch's own (slow, broken, ask,
// named, flood) and the conformance suite's fixtures (greet,
// slow_compute, failing_job, protocol_error_job, confirm_delete,
// multi_input, test_tool_with_task).
var extTools = map[string]extTool{
	"slow":                {support: mcp.TaskSupportRequired, start: startSlow},
	"broken":              {support: mcp.TaskSupportRequired, start: startProtocolError},
	"ask":                 {support: mcp.TaskSupportRequired, start: startAsk("q1")},
	"named":               {support: mcp.TaskSupportRequired, start: startHello, mrtr: "who"},
	"flood":               {support: mcp.TaskSupportRequired, start: startFlood},
	"greet":               {sync: greet},
	"slow_compute":        {support: mcp.TaskSupportOptional, start: startCompute, sync: syncCompute},
	"failing_job":         {support: mcp.TaskSupportRequired, start: startFailing},
	"protocol_error_job":  {support: mcp.TaskSupportRequired, start: startProtocolError},
	"confirm_delete":      {support: mcp.TaskSupportRequired, start: startConfirm},
	"multi_input":         {support: mcp.TaskSupportRequired, start: startAsk("first", "second")},
	"test_tool_with_task": {support: mcp.TaskSupportRequired, start: startHello, mrtr: "user_name"},
}

// form is an elicitation/create input request asking message.
func form(message string, props map[string]any) map[string]any {
	return map[string]any{"method": "elicitation/create", "params": map[string]any{"message": message,
		"requestedSchema": map[string]any{"type": "object", "properties": props}}}
}

var nameForm = form("your name?", map[string]any{"name": map[string]any{"type": "string"}})

func startSlow(ts *ExtTaskServer, st *extTaskState, _ map[string]any) {
	ts.runs++
	text := "slow done " + strconv.Itoa(ts.runs)
	go ts.finishAfter(st, ts.d, mcp.NewToolResultText(text))
}

func startCompute(ts *ExtTaskServer, st *extTaskState, args map[string]any) {
	secs, _ := args["seconds"].(float64)
	go ts.finishAfter(st, time.Duration(secs*float64(time.Second)), computed(args))
}

func syncCompute(ctx context.Context, args map[string]any) *mcp.CallToolResult {
	secs, _ := args["seconds"].(float64)
	select {
	case <-time.After(time.Duration(secs * float64(time.Second))):
	case <-ctx.Done():
		return mcp.NewToolResultError("cancelled")
	}
	return computed(args)
}

func computed(args map[string]any) *mcp.CallToolResult {
	return mcp.NewToolResultText(fmt.Sprintf("computed %v after %vs", args["label"], args["seconds"]))
}

func startFailing(ts *ExtTaskServer, st *extTaskState, _ map[string]any) {
	go ts.finishAfter(st, ts.d, mcp.NewToolResultError("the job failed"))
}

func startProtocolError(ts *ExtTaskServer, st *extTaskState, _ map[string]any) {
	st.status, st.msg = "failed", ""
	st.err = map[string]any{"code": -32603, "message": "it broke: " + ts.plant}
}

// startAsk waits for a form under each key, then says hello to the
// first answer's name (with its action).
func startAsk(keys ...string) func(*ExtTaskServer, *extTaskState, map[string]any) {
	return func(_ *ExtTaskServer, st *extTaskState, _ map[string]any) {
		st.status, st.msg = "input_required", "waiting for a name"
		st.pending = map[string]any{}
		for _, k := range keys {
			st.pending[k] = nameForm
		}
		st.done = func(answers map[string]elicitAnswer) *mcp.CallToolResult {
			a := answers[keys[0]]
			return mcp.NewToolResultText(fmt.Sprintf("hello %v (%s)", a.Content["name"], a.Action))
		}
	}
}

func startFlood(ts *ExtTaskServer, st *extTaskState, args map[string]any) {
	startAsk("q1")(ts, st, args)
	st.msg = "waiting for 50 forms"
	for i := 0; i < 50; i++ {
		st.pending["f"+strconv.Itoa(i)] = nameForm
	}
}

func startConfirm(_ *ExtTaskServer, st *extTaskState, args map[string]any) {
	st.status, st.msg = "input_required", "waiting for a confirmation"
	st.pending = map[string]any{"confirm": form(fmt.Sprintf("delete %v?", args["filename"]),
		map[string]any{"confirm": map[string]any{"type": "boolean"}})}
	st.done = func(answers map[string]elicitAnswer) *mcp.CallToolResult {
		if a := answers["confirm"]; a.Action == "accept" && a.Content["confirm"] == true {
			return mcp.NewToolResultText(fmt.Sprintf("deleted %v", args["filename"]))
		}
		return mcp.NewToolResultText(fmt.Sprintf("kept %v", args["filename"]))
	}
}

// startHello completes a task of a tool that asked a name before the task
// was created (mrtr): its answer is in args["_answer"].
func startHello(ts *ExtTaskServer, st *extTaskState, args map[string]any) {
	go ts.finishAfter(st, 0, mcp.NewToolResultText(fmt.Sprintf("hello %v", args["_answer"])))
}

func greet(_ context.Context, args map[string]any) *mcp.CallToolResult {
	return mcp.NewToolResultText(fmt.Sprintf("Hello, %v!", args["name"]))
}

// elicitAnswer is the answer to an elicitation/create input request.
type elicitAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

// answered reads the answers in responses to st's pending requests,
// removes those from pending, and completes the task when none is left.
// Called with ts.mu held.
func (st *extTaskState) answered(responses map[string]json.RawMessage) {
	if st.status != "input_required" {
		return
	}
	for k, raw := range responses {
		var a elicitAnswer
		if _, ok := st.pending[k]; !ok || json.Unmarshal(raw, &a) != nil || a.Action == "" {
			continue
		}
		delete(st.pending, k)
		st.answers[k] = a
	}
	if len(st.pending) == 0 {
		st.status, st.msg = "completed", "done"
		st.result = st.done(st.answers)
	}
}
