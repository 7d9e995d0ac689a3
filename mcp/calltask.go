package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Errors of a call run as a task, beside Call's own.
var (
	// ErrTaskFailed: the server says the task failed.
	ErrTaskFailed = errors.New("the task failed")
	// ErrTaskCancelled: the task was cancelled on the server (by latch,
	// on Esc, or by the server itself).
	ErrTaskCancelled = errors.New("the task was cancelled")
	// ErrTaskUnknown: the server no longer knows the task (it restarted,
	// or the task expired): its outcome is unknown.
	ErrTaskUnknown = errors.New("the server no longer knows the task")
	// ErrTaskLeft: the call's context ended (latch is closing, or the
	// turn was cancelled) while its task ran: the task was left running
	// on the server, to be polled again (ResumeTask). Only CancelCalls
	// (Esc on a running tool) cancels a task on the server.
	ErrTaskLeft = errors.New("the task was left running on the server")
)

// Bounds on how often a task is polled: a server's pollInterval is taken
// within them, and the default is used when it gives none.
const (
	minTaskPoll     = 250 * time.Millisecond
	maxTaskPoll     = 5 * time.Second
	defaultTaskPoll = 500 * time.Millisecond
)

// maxPollFailures is how many tasks/get in a row may fail (no answer in
// time, a connection lost) before the call gives up on its task.
const maxPollFailures = 3

// taskCancelWait bounds the tasks/cancel sent when the person stops a
// task: the call's own context has ended by then.
const taskCancelWait = 5 * time.Second

// TaskStatus is where a tool call run as a task stands, as its server
// said when polled (tasks/get). Started is set once, when the server
// created the task: the session logs that durably before latch polls.
type TaskStatus struct {
	Server  string
	CallID  string
	Tool    string // model-facing name
	TaskID  string
	Status  string // working, input_required, completed, failed, cancelled
	Message string // the server's statusMessage, redacted (not yet made inert)
	Started bool
}

func (e TaskStatus) server() string { return e.Server }

// taskSeq numbers latch's own task requests; string ids never meet the
// client's numbered ones.
var taskSeq atomic.Int64

// ErrTaskEra: the tool requires a task, and the connection speaks
// 2026-07-28 with a server that does not offer the tasks extension.
var ErrTaskEra = errors.New("the tool runs only as a task, and its server offers no tasks on protocol 2026-07-28")

// asTask says whether a call of the tool goes as a task: the tool
// requires it, or allows it and the server offers task-augmented
// tools/call: on protocol 2025-11-25 the server's tasks capability
// (tasks/get, tasks/result, tasks/cancel), on 2026-07-28 the tasks
// extension (calltask_ext.go). On a 2026-07-28 connection whose server
// offers no extension, a tool that allows a task is called as any other,
// and one that requires it is refused (ErrTaskEra).
func asTask(s *server, c *conn, original string) bool {
	s.mu.Lock()
	var support mcpgo.TaskSupport
	for _, t := range s.tools {
		if t.Name == original && t.Execution != nil {
			support = t.Execution.TaskSupport
		}
	}
	s.mu.Unlock()
	switch support {
	case mcpgo.TaskSupportRequired:
		return true
	case mcpgo.TaskSupportOptional:
		if isModern(c.client.ProtocolVersion()) {
			return extTasks(c)
		}
		caps := c.client.GetServerCapabilities().Tasks
		return caps != nil && caps.Requests != nil && caps.Requests.Tools != nil && caps.Requests.Tools.Call != nil
	}
	return false
}

// callTask runs a call as a task: tools/call with a task, the task's id
// handed out (TaskStatus, Started) before it is polled, then tasks/get
// until it ends and tasks/result. Each request is bounded by the
// server's timeout; the task itself runs as long as it takes, until the
// person stops it (CancelCalls), which cancels it on the server.
func (m *Manager) callTask(ctx context.Context, ref toolRef, c *conn, args map[string]any, callID string) (*Result, error) {
	s := ref.server
	ext := extTasks(c)
	if isModern(c.client.ProtocolVersion()) && !ext {
		return nil, fmt.Errorf("%w: set \"protocol\": \"2025-11-25\" for %s to call it", ErrTaskEra, s.cfg.Name)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	running := m.startCall(callID, cancel)
	params := map[string]any{"name": ref.tool.Original, "arguments": nonNilArgs(args)}
	if !ext {
		params["task"] = map[string]any{} // the extension's server decides alone
	}
	if callID != "" {
		params["_meta"] = map[string]any{"progressToken": callID}
	}
	var raw json.RawMessage
	var err error
	if ext {
		raw, err = m.extCall(cctx, s, c, params)
	} else {
		err = m.taskRequest(cctx, s, c, mcpgo.MethodToolsCall, params, &raw)
	}
	created, err := createdTask(raw, err, ext)
	if err == nil && created.Task.TaskId == "" {
		// The server ran the call at once instead: its answer is the result.
		stopped := m.endCall(callID, running)
		res, perr := mcpgo.ParseCallToolResult(&raw)
		if perr != nil {
			return nil, m.callError(ctx, cctx, stopped, fmt.Errorf("the server answered a task call with neither a task nor a result: %w", perr), ref, c, s.cfg.timeout())
		}
		return convertResult(res, m.opts.MaxResultBytes, m.red), nil
	}
	if err != nil {
		stopped := m.endCall(callID, running)
		return nil, m.callError(ctx, cctx, stopped, err, ref, c, s.cfg.timeout())
	}
	t := taskPoll{m: m, s: s, c: c, name: ref.tool.Name, callID: callID, id: created.Task.TaskId, ext: ext}
	t.report(created.Task, true)
	res, err := t.poll(cctx, created.Task)
	stopped := m.endCall(callID, running)
	switch {
	case err == nil:
		return res, nil
	case stopped:
		return nil, t.cancelled()
	case ctx.Err() != nil:
		return nil, t.left()
	case errors.Is(err, ErrTaskFailed), errors.Is(err, ErrTaskCancelled), errors.Is(err, ErrTaskUnknown):
		return nil, err
	}
	return nil, m.callError(ctx, cctx, false, err, ref, c, s.cfg.timeout())
}

// ResumeTask polls a task a call started before latch stopped (its id
// was logged), and returns its result: the call is never sent again.
// name is the tool's model-facing name; callID tags the task's events
// and lets CancelCalls stop it.
func (m *Manager) ResumeTask(ctx context.Context, name, taskID, callID string) (*Result, error) {
	ref, c, err := m.target(name)
	if err != nil {
		return nil, m.red.redactError(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	running := m.startCall(callID, cancel)
	t := taskPoll{m: m, s: ref.server, c: c, name: name, callID: callID, id: taskID, ext: extTasks(c)}
	res, err := t.poll(cctx, mcpgo.Task{TaskId: taskID})
	stopped := m.endCall(callID, running)
	switch {
	case err == nil:
		return res, nil
	case stopped:
		err = t.cancelled()
	case ctx.Err() != nil:
		err = t.left()
	}
	return nil, m.red.redactError(err)
}

// taskPoll is one task being followed.
type taskPoll struct {
	m      *Manager
	s      *server
	c      *conn
	name   string
	callID string
	id     string
	last   mcpgo.Task // the last status reported
	ext    bool       // the 2026-07-28 tasks extension (calltask_ext.go)
	end    extTask    // the extension's last tasks/get: its result inlined
	// answered are the extension's input requests answered (their ids).
	answered map[string]bool
}

// poll asks tasks/get until the task ends (first is what is known of it
// already), reporting each new status, then fetches the result.
func (t *taskPoll) poll(ctx context.Context, first mcpgo.Task) (*Result, error) {
	task := first
	failures := 0
	for !task.Status.IsTerminal() {
		if err := sleepCtx(ctx, pollEvery(task.PollInterval)); err != nil {
			return nil, err
		}
		got, err := t.get(ctx)
		switch {
		case err == nil:
			failures = 0
		case ctx.Err() == nil && !taskUnknown(err) && failures < maxPollFailures:
			failures++ // a poll lost, slow or refused for now: the task runs on; ask again
			continue
		case ctx.Err() == nil && !taskUnknown(err):
			return nil, fmt.Errorf("%w (task %s may still run on %s)", err, t.id, t.s.cfg.Name)
		default:
			return nil, t.requestError(ctx, err)
		}
		task = got
		t.report(task, false)
		if task.Status == mcpgo.TaskStatusInputRequired && t.ext {
			if err := t.extAnswer(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if task.Status == mcpgo.TaskStatusInputRequired {
			if res, ok := t.withInput(ctx); ok {
				return res, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	return t.ended(ctx, task)
}

// get asks tasks/get once.
func (t *taskPoll) get(ctx context.Context) (mcpgo.Task, error) {
	if t.ext {
		return t.extGet(ctx)
	}
	var got mcpgo.Task
	err := t.m.taskRequest(ctx, t.s, t.c, mcpgo.MethodTasksGet, map[string]any{"taskId": t.id}, &got)
	return got, err
}

// createdTask reads a task call's answer (raw, unless err): the task the
// server created, or none when it ran the call at once. The extension's
// CreateTaskResult is flat (resultType "task"); 2025-11-25's nests it.
func createdTask(raw json.RawMessage, err error, ext bool) (created struct{ Task mcpgo.Task }, _ error) {
	if err != nil {
		return created, err
	}
	if !ext {
		var v struct {
			Task mcpgo.Task `json:"task"`
		}
		err = json.Unmarshal(raw, &v)
		created.Task = v.Task
		return created, err
	}
	var v extTask
	if err := json.Unmarshal(raw, &v); err != nil {
		return created, err
	}
	switch v.ResultType {
	case "task":
		if v.TaskID == "" {
			return created, errors.New("the server created a task without an id")
		}
		created.Task = v.task()
	case "input_required":
		return created, errors.New("the server kept asking for input instead of creating the task")
	}
	return created, nil
}

// withInput calls tasks/result for a task that waits for input: the
// server's requests (a form, a sample, the roots) come with it, through
// the handlers every request has, and it answers when the task ends —
// so it is bounded by nothing but ctx (the person's Esc). ok is false
// when it gave no result: the task is polled on, and tells how it ended.
func (t *taskPoll) withInput(ctx context.Context) (res *Result, ok bool) {
	var raw json.RawMessage
	if err := t.m.sendTask(ctx, t.s, t.c, mcpgo.MethodTasksResult, map[string]any{"taskId": t.id}, &raw, 0); err != nil {
		return nil, false
	}
	parsed, err := mcpgo.ParseCallToolResult(&raw)
	if err != nil {
		return nil, false
	}
	var got mcpgo.Task // the end, for the card
	if t.m.taskRequest(ctx, t.s, t.c, mcpgo.MethodTasksGet, map[string]any{"taskId": t.id}, &got) == nil {
		t.report(got, false)
	}
	return convertResult(parsed, t.m.opts.MaxResultBytes, t.m.red), true
}

// ended is what a task that reached a final status gives the call: its
// result, or the error that says it failed or was cancelled.
func (t *taskPoll) ended(ctx context.Context, task mcpgo.Task) (*Result, error) {
	if t.ext {
		return t.extEnded(ctx, task)
	}
	switch task.Status {
	case mcpgo.TaskStatusCompleted:
		return t.result(ctx)
	case mcpgo.TaskStatusFailed:
		if res, err := t.result(ctx); err == nil && res.IsError {
			return res, nil // the tool's own error result: the model reads it
		}
		return nil, fmt.Errorf("%w on %s: %s", ErrTaskFailed, t.s.cfg.Name, orNone(t.capped(task.StatusMessage)))
	}
	return nil, fmt.Errorf("%w on %s: %s", ErrTaskCancelled, t.s.cfg.Name, orNone(t.capped(task.StatusMessage)))
}

// result fetches the finished task's CallToolResult (tasks/result).
func (t *taskPoll) result(ctx context.Context) (*Result, error) {
	var raw json.RawMessage
	if err := t.m.taskRequest(ctx, t.s, t.c, mcpgo.MethodTasksResult, map[string]any{"taskId": t.id}, &raw); err != nil {
		return nil, t.requestError(ctx, err)
	}
	res, err := mcpgo.ParseCallToolResult(&raw)
	if err != nil {
		return nil, fmt.Errorf("tasks/result of task %s: %w", t.id, err)
	}
	return convertResult(res, t.m.opts.MaxResultBytes, t.m.red), nil
}

// requestError is what a failed tasks/get or tasks/result means: the
// server does not know the task, or the request itself failed.
func (t *taskPoll) requestError(ctx context.Context, err error) error {
	var rpc *rpcError
	switch {
	case ctx.Err() == nil && taskUnknown(err) && errors.As(err, &rpc):
		return fmt.Errorf("%w: %s answered %q for task %s", ErrTaskUnknown, t.s.cfg.Name, rpc.msg, t.id)
	case ctx.Err() == nil && errors.As(err, &rpc):
		return fmt.Errorf("%s answered %q for task %s, which may still run there", t.s.cfg.Name, rpc.msg, t.id)
	}
	return err
}

// taskUnknown says whether err is a server's answer that it does not know
// the task: invalid params (-32602), as both the 2025-11-25 tasks and the
// 2026-07-28 extension answer an unknown or expired task id. Any other
// error (an internal one, a server busy) says nothing of the task.
func taskUnknown(err error) bool {
	var rpc *rpcError
	return errors.As(err, &rpc) && rpc.code == mcpgo.INVALID_PARAMS
}

// cancelled sends tasks/cancel for a task the person stopped, reports
// it cancelled, and returns the error that says so.
func (t *taskPoll) cancelled() error {
	ctx, cancel := context.WithTimeout(context.Background(), taskCancelWait)
	defer cancel()
	var got mcpgo.Task
	err := t.m.taskRequest(ctx, t.s, t.c, mcpgo.MethodTasksCancel, map[string]any{"taskId": t.id}, &got)
	if err != nil || got.TaskId == "" {
		got = mcpgo.Task{TaskId: t.id, Status: mcpgo.TaskStatusCancelled, StatusMessage: "cancelled by latch"}
	}
	got.Status = mcpgo.TaskStatusCancelled
	t.report(got, false)
	if err != nil {
		return fmt.Errorf("%w: %s: %w, but tasks/cancel failed: %s", ErrCancelled, t.name, ErrTaskCancelled, shortError(err))
	}
	return fmt.Errorf("%w: %s: %w on %s", ErrCancelled, t.name, ErrTaskCancelled, t.s.cfg.Name)
}

// left is the error of a task call whose context ended: the task runs on.
func (t *taskPoll) left() error {
	return fmt.Errorf("%w: %s: %w: task %s on %s", ErrCancelled, t.name, ErrTaskLeft, t.id, t.s.cfg.Name)
}

// maxTaskText caps a task's status message and status as handed out: a
// server chooses them, and they are shown on a card.
const maxTaskText = 500

// report hands out the task's status when it changed (or started).
func (t *taskPoll) report(task mcpgo.Task, started bool) {
	if !started && task.Status == t.last.Status && task.StatusMessage == t.last.StatusMessage {
		return
	}
	t.last = task
	t.m.emit(TaskStatus{Server: t.s.cfg.Name, CallID: t.callID, Tool: t.name, TaskID: t.m.red.cut(t.id, maxTaskText),
		Status: t.m.red.cut(string(task.Status), maxTaskText), Message: t.capped(task.StatusMessage), Started: started})
}

// capped is a server's text cut to maxTaskText, redacted.
func (t *taskPoll) capped(s string) string {
	s = t.m.red.apply(s)
	if len(s) > maxTaskText {
		return t.m.red.cut(s, maxTaskText) + "…"
	}
	return s
}

// rpcError is a JSON-RPC error the server answered a task request with.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string { return e.msg }

// taskRequest sends one task request through the client's transport
// (mcp-go's CallTool cannot read a CreateTaskResult) with the era's
// _meta and headers, bounded by the server's timeout, and decodes its
// result into out.
func (m *Manager) taskRequest(ctx context.Context, s *server, c *conn, method mcpgo.MCPMethod, params map[string]any, out any) error {
	return m.sendTask(ctx, s, c, method, params, out, s.cfg.timeout())
}

// sendTask is taskRequest bounded by bound, or by ctx alone when bound is
// 0.
func (m *Manager) sendTask(ctx context.Context, s *server, c *conn, method mcpgo.MCPMethod, params map[string]any, out any, bound time.Duration) error {
	var rctx context.Context
	var cancel context.CancelFunc
	if bound > 0 {
		rctx, cancel = context.WithTimeout(ctx, bound)
	} else {
		rctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	req := c.eraRequest(transport.JSONRPCRequest{
		JSONRPC: mcpgo.JSONRPC_VERSION,
		ID:      mcpgo.NewRequestId(fmt.Sprintf("latch-task-%d", taskSeq.Add(1))),
		Method:  string(method),
		Params:  params,
	})
	if extTasks(c) {
		req = extRequest(req)
	}
	resp, err := c.client.GetTransport().SendRequest(rctx, req)
	if err != nil {
		if ctx.Err() == nil && rctx.Err() != nil {
			return fmt.Errorf("%w: %s: %s gave no answer within %s", ErrTimeout, s.cfg.Name, method, bound)
		}
		return transport.NewError(err)
	}
	if resp.Error != nil {
		return &rpcError{code: resp.Error.Code, msg: m.red.apply(resp.Error.Message)}
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// pollEvery is how long to wait before the next tasks/get: the server's
// pollInterval (milliseconds) within bounds, or the default.
func pollEvery(ms *int64) time.Duration {
	if ms == nil || *ms <= 0 {
		return defaultTaskPoll
	}
	if *ms >= maxTaskPoll.Milliseconds() {
		return maxTaskPoll
	}
	return max(time.Duration(*ms)*time.Millisecond, minTaskPoll)
}

// sleepCtx waits d, or until ctx ends (its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func nonNilArgs(args map[string]any) map[string]any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

func orNone(msg string) string {
	if msg == "" {
		return "(no message)"
	}
	return msg
}
