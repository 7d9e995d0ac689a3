package mcptestutil

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ExtTasksID is the 2026-07-28 tasks extension's identifier.
const ExtTasksID = "io.modelcontextprotocol/tasks"

// ExtTaskServer is a 2026-07-28 server that runs tools as tasks through
// the tasks extension (SEP-2663), which mcp-go does not serve: an mcp-go
// server answers everything else (server/discover, offering the
// extension; tools/list; a tool run at once), and the extension's surface
// is answered here, as the conformance suite's tasks scenarios check it
// (tasksext_conformance_test.go): tools/call of a task tool declaring the
// extension in its _meta (a flat CreateTaskResult), tasks/get (the result
// or error inlined, the pending input requests listed), tasks/update
// (answers, an empty ack), tasks/cancel (an empty ack); without the
// extension declared, tasks/* and a tool that requires a task are refused
// with -32021 and one that allows it runs at once; Mcp-Method and
// Mcp-Name (the task id on tasks/*) must match the body (-32020);
// tasks/result and tasks/list do not exist (-32601). Its tools (extTools):
//
//	slow    requires a task; runs for its duration (or until cancelled),
//	        then returns "slow done N" (N counts runs)
//	broken  requires a task; fails with a protocol error holding the plant
//	ask     requires a task; waits for a form's answer (input_required,
//	        tasks/update), then returns "hello NAME (ACTION)"
//	named   requires a task; asks a name before creating it (an
//	        InputRequiredResult), then returns "hello NAME"
//	flood   requires a task; waits for 51 forms at once
//
// and the suite's fixtures: greet, slow_compute, failing_job,
// protocol_error_job, confirm_delete, multi_input, test_tool_with_task.
type ExtTaskServer struct {
	MCP *server.MCPServer
	d   time.Duration

	mu        sync.Mutex
	runs      int
	tasks     map[string]*extTaskState
	created   []string
	cancelled []string
	names     []string // Mcp-Name of each tasks/* request
	updates   int      // tasks/update requests
	plant     string
	prefix    string // of each task id
}

type extTaskState struct {
	status string
	msg    string
	result any
	err    any
	stop   chan struct{}
	// pending are the input requests not answered yet, by id; done makes
	// the result once every one is answered.
	pending map[string]any
	answers map[string]elicitAnswer
	done    func(map[string]elicitAnswer) *mcp.CallToolResult
}

// NewExtTaskServer makes an ExtTaskServer whose slow tool runs for d (and
// failing_job fails after d), and whose broken tool fails with plant in
// its message.
func NewExtTaskServer(d time.Duration, plant string) *ExtTaskServer {
	ts := &ExtTaskServer{d: d, tasks: map[string]*extTaskState{}, plant: plant, prefix: "ext-"}
	ts.MCP = server.NewMCPServer("exttasks", "1.0", server.WithToolCapabilities(false),
		server.WithExtensions(map[string]any{ExtTasksID: map[string]any{}}))
	for name, tool := range extTools {
		opts := []mcp.ToolOption{}
		if tool.support != "" {
			opts = append(opts, mcp.WithTaskSupport(tool.support))
		}
		run := tool.sync
		ts.MCP.AddTool(mcp.NewTool(name, opts...), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if run == nil {
				return mcp.NewToolResultError("called without the tasks extension"), nil
			}
			return run(ctx, req.GetArguments()), nil
		})
	}
	return ts
}

// SetTaskIDPrefix makes the ids of the tasks created from now on begin
// with p (by default "ext-"): a server mints its task ids as it likes.
func (ts *ExtTaskServer) SetTaskIDPrefix(p string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.prefix = p
}

// Created is the ids of the tasks created, in order.
func (ts *ExtTaskServer) Created() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.created...)
}

// Cancelled is the ids of the tasks cancelled (tasks/cancel), in order.
func (ts *ExtTaskServer) Cancelled() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.cancelled...)
}

// Runs is how many times slow started.
func (ts *ExtTaskServer) Runs() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.runs
}

// Updates is how many tasks/update requests came.
func (ts *ExtTaskServer) Updates() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.updates
}

// Names is the Mcp-Name header of each tasks/* request (decoded), in
// order.
func (ts *ExtTaskServer) Names() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.names...)
}

// extRequest is a JSON-RPC request as the extension's surface reads it.
type extRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string                     `json:"name"`
		Arguments map[string]any             `json:"arguments"`
		TaskID    string                     `json:"taskId"`
		Responses map[string]json.RawMessage `json:"inputResponses"`
		State     string                     `json:"requestState"`
		Meta      struct {
			Caps struct {
				Extensions map[string]any `json:"extensions"`
			} `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	} `json:"params"`
	params json.RawMessage
}

// rpcErr is a JSON-RPC error of the extension's surface.
type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Handler serves ts over streamable HTTP (stateless), the extension's
// requests answered by ts and the rest by mcp.
func (ts *ExtTaskServer) Handler() http.Handler {
	next := server.NewStreamableHTTPServer(ts.MCP, server.WithStateLess(true))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req extRequest
		var raw struct {
			Params json.RawMessage `json:"params"`
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil || json.Unmarshal(body, &raw) != nil || !ts.ours(req) {
			next.ServeHTTP(w, r)
			return
		}
		req.params = raw.Params
		result, e := ts.answer(r.Header, req)
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		status := http.StatusOK
		if e != nil {
			msg["error"] = e
			status = httpStatus(e.Code)
		} else {
			msg["result"] = result
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(msg)
	})
}

// ours says whether the request is the extension's to answer: a task
// tool called as a task (or one that cannot run without), or tasks/*.
func (ts *ExtTaskServer) ours(req extRequest) bool {
	switch req.Method {
	case "tools/call":
		tool, ok := extTools[req.Params.Name]
		return ok && (tool.support == mcp.TaskSupportRequired || tool.support != "" && declared(req))
	case "tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list":
		return true
	}
	return false
}

func declared(req extRequest) bool {
	_, ok := req.Params.Meta.Caps.Extensions[ExtTasksID]
	return ok
}

// httpStatus is the HTTP status of an error, as mcp-go's stateless
// server answers it.
func httpStatus(code int) int {
	switch code {
	case mcp.METHOD_NOT_FOUND:
		return http.StatusNotFound
	case mcp.HEADER_MISMATCH, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, mcp.INVALID_PARAMS:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// answer answers one request of the extension's surface: its headers
// checked first, then the extension's declaration, then the request.
func (ts *ExtTaskServer) answer(h http.Header, req extRequest) (any, *rpcErr) {
	if req.Method == "tasks/result" || req.Method == "tasks/list" {
		return nil, &rpcErr{Code: mcp.METHOD_NOT_FOUND, Message: "method not found: " + req.Method}
	}
	if err := checkHeaders(h, req); err != nil {
		return nil, err
	}
	if !declared(req) {
		return nil, &rpcErr{Code: mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
			Message: "this request needs the client capability " + ExtTasksID,
			Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtTasksID: map[string]any{}}}}}
	}
	if req.Method == "tools/call" {
		return ts.call(req), nil
	}
	ts.mu.Lock()
	name, _ := mcp.DecodeHeaderValue(h.Get(mcp.HeaderName))
	ts.names = append(ts.names, name)
	ts.mu.Unlock()
	return ts.taskMethod(req.Method, req.Params.TaskID, req.Params.Responses)
}

// checkHeaders checks Mcp-Method and Mcp-Name against the body (SEP-2243;
// on tasks/*, Mcp-Name is the task id: SEP-2663).
func checkHeaders(h http.Header, req extRequest) *rpcErr {
	err := mcp.ValidateStandardHeaders(h.Get, mcp.LATEST_PROTOCOL_VERSION, mcp.MCPMethod(req.Method), req.params)
	if err == nil && strings.HasPrefix(req.Method, "tasks/") {
		name, ok := mcp.DecodeHeaderValue(h.Get(mcp.HeaderName))
		switch {
		case h.Get(mcp.HeaderName) == "":
			err = mcp.HeaderMismatchError{Header: mcp.HeaderName, Reason: "missing required header for method " + req.Method}
		case !ok || name != req.Params.TaskID:
			err = mcp.HeaderMismatchError{Header: mcp.HeaderName, Reason: "header value does not match params.taskId"}
		}
	}
	if err != nil {
		return &rpcErr{Code: mcp.HEADER_MISMATCH, Message: err.Error()}
	}
	return nil
}

// call answers a tools/call of a task tool: first the input it asks
// before the task exists (its mrtr), then the task created — or, for a
// tool that allows a task and has nothing to wait for (slow_compute of 0
// seconds), its result at once, as SEP-2663 lets a server answer.
func (ts *ExtTaskServer) call(req extRequest) map[string]any {
	tool := extTools[req.Params.Name]
	args := req.Params.Arguments
	if secs, ok := args["seconds"].(float64); ok && secs == 0 && tool.sync != nil {
		return completeResult(tool.sync(context.Background(), args))
	}
	if tool.mrtr != "" {
		var a elicitAnswer
		raw, ok := req.Params.Responses[tool.mrtr]
		if !ok || req.Params.State != "asked-"+tool.mrtr || json.Unmarshal(raw, &a) != nil {
			return map[string]any{"resultType": "input_required", "requestState": "asked-" + tool.mrtr,
				"inputRequests": map[string]any{tool.mrtr: nameForm}}
		}
		args = map[string]any{"_answer": a.Content["name"]}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	id := ts.prefix + strconv.Itoa(len(ts.created)+1)
	st := &extTaskState{status: "working", msg: "started", stop: make(chan struct{}), answers: map[string]elicitAnswer{}}
	ts.tasks[id] = st
	ts.created = append(ts.created, id)
	tool.start(ts, st, args)
	return ts.view(id, st, true)
}

// finishAfter completes st with res after d, unless it is cancelled
// first.
func (ts *ExtTaskServer) finishAfter(st *extTaskState, d time.Duration, res *mcp.CallToolResult) {
	select {
	case <-time.After(d):
	case <-st.stop:
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if st.status == "working" {
		st.status, st.msg = "completed", "done"
		st.result = res
	}
}

// view is a task on the wire: a CreateTaskResult, or tasks/get's
// DetailedTask. Called with ts.mu held.
func (ts *ExtTaskServer) view(id string, st *extTaskState, created bool) map[string]any {
	v := map[string]any{"resultType": "complete", "taskId": id, "status": st.status, "statusMessage": st.msg,
		"pollIntervalMs": 100, "ttlMs": 60000, "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:00Z"}
	if created {
		v["resultType"] = "task"
		return v
	}
	if st.result != nil {
		v["result"] = st.result
	}
	if st.err != nil {
		v["error"] = st.err
	}
	if st.status == "input_required" {
		reqs := map[string]any{}
		for k, r := range st.pending {
			reqs[k] = r
		}
		v["inputRequests"] = reqs
	}
	return v
}

func (ts *ExtTaskServer) taskMethod(method, id string, responses map[string]json.RawMessage) (any, *rpcErr) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	st, ok := ts.tasks[id]
	if !ok {
		return nil, &rpcErr{Code: mcp.INVALID_PARAMS, Message: "unknown task " + id}
	}
	switch method {
	case "tasks/cancel":
		ts.cancelled = append(ts.cancelled, id)
		if st.status == "working" || st.status == "input_required" {
			st.status, st.msg = "cancelled", "cancelled on request"
			close(st.stop)
		}
		return map[string]any{"resultType": "complete"}, nil
	case "tasks/update":
		ts.updates++
		st.answered(responses)
		return map[string]any{"resultType": "complete"}, nil
	}
	return ts.view(id, st, false), nil
}

// completeResult is res as a result of the 2026-07-28 wire
// (resultType "complete").
func completeResult(res *mcp.CallToolResult) map[string]any {
	var v map[string]any
	b, _ := json.Marshal(res)
	_ = json.Unmarshal(b, &v)
	v["resultType"] = "complete"
	return v
}
