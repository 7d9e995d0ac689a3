package gateway

// MCP tasks (protocol 2025-11-25): a client that declares task support
// and calls a tool whose calls park with a task-augmented tools/call gets
// a task at once, and follows it with tasks/get, tasks/result and
// tasks/cancel. The task is the parked call: its id is the invocation id,
// and its state is the session's (GatewayPeek, GatewayAwait,
// GatewayWithdraw), shared with latch_await_decision and latch approve,
// and taken up again after a restart. mcp-go's own task store (in memory,
// with ids of its own) is never used: the gateway answers the task
// methods itself (taskroute.go).

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/session"
)

// taskPollInterval is how often latch suggests a client ask tasks/get: a
// decision reaches the gateway within a second, so no faster.
const taskPollInterval = 2 * time.Second

// keepDone is how long the task of a call that did not park (allowed or
// refused at once) is kept: in memory only, unlike a parked call's.
const keepDone = time.Hour

// JSON-RPC error codes of the task methods.
const (
	codeInvalidParams  = -32602
	codeMethodNotFound = -32601
)

// rpcError is a JSON-RPC error answering a task method.
type rpcError struct {
	code    int
	message string
}

// taskSlot receives the outcome of a task-augmented call from the tool
// handler (call) it went through, in the request's context.
type taskSlot struct {
	out    session.GatewayOutcome
	filled bool
}

type taskSlotKey struct{}

// withTaskSlot is ctx carrying slot to the call's handler.
func withTaskSlot(ctx context.Context, slot *taskSlot) context.Context {
	return context.WithValue(ctx, taskSlotKey{}, slot)
}

// noteTaskOutcome hands the outcome of a call to its task, when the call
// is task-augmented.
func noteTaskOutcome(ctx context.Context, out session.GatewayOutcome) {
	if slot, ok := ctx.Value(taskSlotKey{}).(*taskSlot); ok {
		slot.out, slot.filled = out, true
	}
}

// taskCreated is the answer to a task-augmented tools/call once it went
// through the gate (slot filled): its task, waiting for a person when it
// parked. Nil when the call did not reach the gate (an unknown tool, bad
// arguments): mcp-go's own answer then stands.
func (g *Gateway) taskCreated(slot *taskSlot) *mcpgo.CreateTaskResult {
	if !slot.filled || slot.out.Decision == session.GatewayUnknown {
		return nil
	}
	out, now := slot.out, time.Now()
	created := now
	if out.Decision != session.GatewayParked {
		g.tasks.put(out, now)
	} else {
		created = g.parkedAt(out)
	}
	t := g.taskOf(out, created)
	return &mcpgo.CreateTaskResult{Task: t,
		Result: mcpgo.Result{Meta: mcpgo.WithModelImmediateResponse(t.StatusMessage)}}
}

// lookup is the task of an invocation id as it stands, and when it was
// created; ok false for an id no call has.
func (g *Gateway) lookup(id string) (session.GatewayOutcome, time.Time, bool) {
	if d, ok := g.tasks.get(id); ok {
		return d.out, d.created, true
	}
	out := g.o.Session.GatewayPeek(id)
	if out.Decision == session.GatewayUnknown {
		return out, time.Time{}, false
	}
	return out, g.parkedAt(out), true
}

// parkedAt is when a parked call parked: its expiry less the ttl.
func (g *Gateway) parkedAt(out session.GatewayOutcome) time.Time {
	ttl := g.o.TTL
	if ttl <= 0 {
		ttl = session.DefaultApprovalTTL
	}
	return out.Expires.Add(-ttl)
}

// taskOf is the MCP task of a call's outcome. A call waiting for a person
// is "working" with a message saying so, not "input_required": that
// status asks the requestor (the client) for input through tasks/result,
// and the input here is a person's decision, made outside MCP. An
// outcome whose result is an error is "failed" (as the spec counts an
// isError tool result), a withdrawn call "cancelled".
func (g *Gateway) taskOf(out session.GatewayOutcome, created time.Time) mcpgo.Task {
	status, msg := mcpgo.TaskStatusCompleted, ""
	switch out.Decision {
	case session.GatewayParked:
		status = mcpgo.TaskStatusWorking
		msg = "waiting for a person's approval: latch approve " + out.ID + " (or latch reject " + out.ID +
			"), before " + out.Expires.UTC().Format(time.RFC3339)
	case session.GatewayWithdrawn:
		status, msg = mcpgo.TaskStatusCancelled, out.Reason
	case session.GatewayExpired:
		status, msg = mcpgo.TaskStatusFailed, "expired: no one decided before "+out.Expires.UTC().Format(time.RFC3339)+"; it never ran"
	case session.GatewayDenied:
		status, msg = mcpgo.TaskStatusFailed, "denied: "+out.Reason
	case session.GatewayInDoubt:
		status, msg = mcpgo.TaskStatusFailed, "in doubt: "+out.Reason
	default:
		if r := outcomeResult(out); r.IsError {
			status, msg = mcpgo.TaskStatusFailed, "the tool reported an error"
			if out.Result == nil {
				msg = out.Error
			}
		}
	}
	opts := []mcpgo.TaskOption{mcpgo.WithTaskStatus(status), mcpgo.WithTaskStatusMessage(msg),
		mcpgo.WithTaskCreatedAt(created.UTC().Format(time.RFC3339)),
		mcpgo.WithTaskPollInterval(taskPollInterval.Milliseconds())}
	if _, done := g.tasks.get(out.ID); done {
		opts = append(opts, mcpgo.WithTaskTTL(keepDone.Milliseconds()))
	}
	t := mcpgo.NewTask(out.ID, opts...)
	if status == mcpgo.TaskStatusWorking {
		t.LastUpdatedAt = t.CreatedAt
	}
	return t
}

// taskRequest answers tasks/get, tasks/result, tasks/cancel and
// tasks/list.
func (g *Gateway) taskRequest(ctx context.Context, m taskMessage) (any, *rpcError) {
	if m.Method == string(mcpgo.MethodTasksList) {
		return nil, &rpcError{codeMethodNotFound, "tasks/list is not served: latch approvals lists the waiting calls"}
	}
	out, created, ok := g.lookup(m.Params.TaskID)
	if !ok {
		if why := g.tasks.dropped(m.Params.TaskID); why != "" {
			return nil, &rpcError{codeInvalidParams, why}
		}
		return nil, &rpcError{codeInvalidParams, "no task has the id " + quote(m.Params.TaskID)}
	}
	switch mcpgo.MCPMethod(m.Method) {
	case mcpgo.MethodTasksGet:
		return mcpgo.NewGetTaskResult(g.taskOf(out, created)), nil
	case mcpgo.MethodTasksResult:
		return g.taskResult(ctx, out), nil
	}
	return g.cancelTask(ctx, out, created)
}

// taskResult waits until the task is done (the call decided, and run if
// approved), or the client gives up, and returns what latch_await_decision
// would: the same outcome.
func (g *Gateway) taskResult(ctx context.Context, out session.GatewayOutcome) any {
	for out.Decision == session.GatewayParked && ctx.Err() == nil {
		out = g.o.Session.GatewayAwait(ctx, out.ID, time.Minute)
	}
	r := outcomeResult(out)
	r.Meta = mcpgo.WithRelatedTask(out.ID)
	return r
}

// cancelTask withdraws a parked call for its client: it never runs. A
// task already done, or approved and running, cannot be cancelled.
func (g *Gateway) cancelTask(ctx context.Context, out session.GatewayOutcome, created time.Time) (any, *rpcError) {
	if out.Decision == session.GatewayParked {
		err := g.o.Session.GatewayWithdraw(out.ID, "its client", "tasks/cancel")
		if err == nil {
			g.logLine(callLine{Client: clientName(ctx), Tool: "tasks/cancel", Decision: session.GatewayWithdrawn, ID: out.ID})
			out = g.o.Session.GatewayAwait(ctx, out.ID, DefaultAwaitPoll)
			return mcpgo.NewCancelTaskResult(g.taskOf(out, created)), nil
		}
		if !errors.Is(err, session.ErrUnknownInvocation) {
			out = g.o.Session.GatewayPeek(out.ID)
		}
	}
	if out.Decision == session.GatewayParked {
		return nil, &rpcError{codeInvalidParams, "cannot cancel " + out.ID + ": a person approved it, and it runs"}
	}
	return nil, &rpcError{codeInvalidParams, "cannot cancel " + out.ID + ": the task is already " + string(g.taskOf(out, created).Status)}
}

// rpcResponse is the JSON-RPC response to the request id: result, or
// the error.
func rpcResponse(id json.RawMessage, result any, e *rpcError) []byte {
	m := map[string]any{"jsonrpc": mcpgo.JSONRPC_VERSION, "id": id}
	if e != nil {
		m["error"] = map[string]any{"code": e.code, "message": e.message}
	} else {
		m["result"] = result
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"jsonrpc": mcpgo.JSONRPC_VERSION, "id": id,
			"error": map[string]any{"code": -32603, "message": "latch could not encode the answer"}})
	}
	return b
}
