package mcptestutil

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
// extension; tools/list), and the extension's surface is answered here —
// tools/call of its task tools (a flat CreateTaskResult, only for a
// request that declares the extension), tasks/get (the result or error
// inlined), tasks/cancel (an empty ack), tasks/result refused. Its tools:
//
//	slow    requires a task; runs for its duration (or until cancelled),
//	        then returns "slow done N" (N counts runs)
//	broken  requires a task; fails with a protocol error holding the plant
//	ask     requires a task; waits for a form's answer (input_required,
//	        tasks/update), then returns "hello NAME (ACTION)"
//	named   requires a task; asks a name before creating it (an
//	        InputRequiredResult), then returns "hello NAME"
//	flood   requires a task; waits for 50 forms at once
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
}

type extTaskState struct {
	status string
	msg    string
	result any
	err    any
	stop   chan struct{}
	flood  bool // asks 50 forms
}

// NewExtTaskServer makes an ExtTaskServer whose slow tool runs for d,
// and whose broken tool fails with plant in its message.
func NewExtTaskServer(d time.Duration, plant string) *ExtTaskServer {
	ts := &ExtTaskServer{d: d, tasks: map[string]*extTaskState{}}
	ts.MCP = server.NewMCPServer("exttasks", "1.0", server.WithToolCapabilities(false),
		server.WithExtensions(map[string]any{ExtTasksID: map[string]any{}}))
	never := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("called without the tasks extension"), nil
	}
	for _, name := range []string{"slow", "broken", "ask", "named", "flood"} {
		ts.MCP.AddTool(mcp.NewTool(name, mcp.WithTaskSupport(mcp.TaskSupportRequired)), never)
	}
	ts.plant = plant
	return ts
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

// Names is the Mcp-Name header of each tasks/* request, in order.
func (ts *ExtTaskServer) Names() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.names...)
}

// Handler serves ts over streamable HTTP (stateless), the extension's
// requests answered by ts and the rest by mcp.
func (ts *ExtTaskServer) Handler() http.Handler {
	next := server.NewStreamableHTTPServer(ts.MCP, server.WithStateLess(true))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string                     `json:"name"`
				TaskID    string                     `json:"taskId"`
				Responses map[string]json.RawMessage `json:"inputResponses"`
				State     string                     `json:"requestState"`
				Meta      struct {
					Caps struct {
						Extensions map[string]any `json:"extensions"`
					} `json:"io.modelcontextprotocol/clientCapabilities"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
			next.ServeHTTP(w, r)
			return
		}
		_, declared := req.Params.Meta.Caps.Extensions[ExtTasksID]
		var result, rpcErr any
		switch {
		case req.Method == "tools/call" && ts.isTaskTool(req.Params.Name):
			if !declared {
				rpcErr = map[string]any{"code": -32021, "message": "the tasks extension is required"}
				break
			}
			if req.Params.Name == "named" {
				result = ts.named(req.Params.Responses, req.Params.State)
				break
			}
			result = ts.create(req.Params.Name)
		case req.Method == "tasks/get" || req.Method == "tasks/cancel" || req.Method == "tasks/update":
			ts.mu.Lock()
			ts.names = append(ts.names, r.Header.Get("Mcp-Name"))
			ts.mu.Unlock()
			result, rpcErr = ts.taskMethod(req.Method, req.Params.TaskID, req.Params.Responses)
		case req.Method == "tasks/result" || req.Method == "tasks/list":
			rpcErr = map[string]any{"code": -32601, "message": "method not found"}
		default:
			next.ServeHTTP(w, r)
			return
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			msg["error"] = rpcErr
		} else {
			msg["result"] = result
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
	})
}

func (ts *ExtTaskServer) isTaskTool(name string) bool {
	return name == "slow" || name == "broken" || name == "ask" || name == "named" || name == "flood"
}

// named answers a call of named: first an InputRequiredResult asking a
// name (with a requestState), then, given the answer and that state, a
// task already completed with "hello NAME".
func (ts *ExtTaskServer) named(responses map[string]json.RawMessage, state string) map[string]any {
	var answer struct {
		Content map[string]any `json:"content"`
	}
	if raw, ok := responses["who"]; !ok || state != "named-1" || json.Unmarshal(raw, &answer) != nil {
		return map[string]any{"resultType": "input_required", "requestState": "named-1",
			"inputRequests": map[string]any{"who": map[string]any{"method": "elicitation/create",
				"params": map[string]any{"message": "your name?", "requestedSchema": map[string]any{"type": "object"}}}}}
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	id := "ext-" + strconv.Itoa(len(ts.created)+1)
	st := &extTaskState{status: "completed", msg: "done", stop: make(chan struct{}),
		result: mcp.NewToolResultText(fmt.Sprintf("hello %v", answer.Content["name"]))}
	ts.tasks[id] = st
	ts.created = append(ts.created, id)
	return ts.view(id, st, true)
}

// create starts a task of tool and returns its CreateTaskResult.
func (ts *ExtTaskServer) create(tool string) map[string]any {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	id := "ext-" + strconv.Itoa(len(ts.created)+1)
	st := &extTaskState{status: "working", msg: "started", stop: make(chan struct{})}
	ts.tasks[id] = st
	ts.created = append(ts.created, id)
	switch tool {
	case "slow":
		ts.runs++
		go ts.run(st, "slow done "+strconv.Itoa(ts.runs))
	case "broken":
		st.status, st.msg = "failed", ""
		st.err = map[string]any{"code": -32603, "message": "it broke: " + ts.plant}
	case "ask":
		st.status, st.msg = "input_required", "waiting for a name"
	case "flood":
		st.status, st.msg, st.flood = "input_required", "waiting for 50 forms", true
	}
	return ts.view(id, st, true)
}

func (ts *ExtTaskServer) run(st *extTaskState, text string) {
	select {
	case <-time.After(ts.d):
	case <-st.stop:
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if st.status == "working" {
		st.status, st.msg = "completed", "done"
		st.result = mcp.NewToolResultText(text)
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
		form := map[string]any{"method": "elicitation/create",
			"params": map[string]any{"message": "your name?", "requestedSchema": map[string]any{"type": "object"}}}
		reqs := map[string]any{"q1": form}
		for i := 0; st.flood && i < 50; i++ {
			reqs["f"+strconv.Itoa(i)] = form
		}
		v["inputRequests"] = reqs
	}
	return v
}

func (ts *ExtTaskServer) taskMethod(method, id string, responses map[string]json.RawMessage) (result, rpcErr any) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	st, ok := ts.tasks[id]
	if !ok {
		return nil, map[string]any{"code": -32602, "message": "unknown task " + id}
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
		var answer struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		if raw, ok := responses["q1"]; ok && st.status == "input_required" && json.Unmarshal(raw, &answer) == nil {
			st.status, st.msg = "completed", "done"
			st.result = mcp.NewToolResultText(fmt.Sprintf("hello %v (%s)", answer.Content["name"], answer.Action))
		}
		return map[string]any{"resultType": "complete"}, nil
	}
	return ts.view(id, st, false), nil
}
