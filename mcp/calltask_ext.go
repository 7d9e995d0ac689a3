package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// tasksExtension is the 2026-07-28 tasks extension (SEP-2663): a server
// that offers it names it under capabilities.extensions in its
// server/discover answer.
const tasksExtension = "io.modelcontextprotocol/tasks"

// extTasks says whether the connection runs tasks through the 2026-07-28
// extension: it speaks that era, and its server offers the extension.
// latch declares the extension only on the calls it runs as tasks (the
// per-request opt-in), so the server never turns any other call into a
// task that mcp-go's CallTool could not read.
func extTasks(c *conn) bool {
	if !isModern(c.client.ProtocolVersion()) {
		return false
	}
	_, ok := c.client.GetServerCapabilities().Extensions[tasksExtension]
	return ok
}

// extTask is a task as the extension gives it: flat in a tools/call's
// CreateTaskResult (resultType "task"), and as tasks/get's DetailedTask,
// which inlines the tool's result when completed, the error when failed
// and the input requests when it waits for input. There is no
// tasks/result.
type extTask struct {
	ResultType     string           `json:"resultType"`
	TaskID         string           `json:"taskId"`
	Status         mcpgo.TaskStatus `json:"status"`
	StatusMessage  string           `json:"statusMessage"`
	PollIntervalMs *int64           `json:"pollIntervalMs"`
	Result         json.RawMessage  `json:"result"`
	Error          *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	InputRequests mcpgo.InputRequests `json:"inputRequests"`
}

// inputHandlers answer what a task of the extension asks while it waits
// for input (input_required): the handlers the connection registered with
// mcp-go, which answer a server's requests on every other path (the
// same gate, boxes, limits and log). nil: that capability is not offered.
type inputHandlers struct {
	roots  client.RootsHandler
	elicit client.ElicitationHandler
	sample client.SamplingHandler
}

// inputHandlers are the handlers of what c declared (dialCtx sets them).
func (c *conn) inputHandlers(h dialHooks) inputHandlers {
	var in inputHandlers
	if c.roots {
		in.roots = h.roots
	}
	if c.elicit {
		in.elicit = c.elicitHandler(h)
	}
	if c.sample {
		in.sample = h.sample
	}
	return in
}

// answer is the connection's answer to one input request.
func (in inputHandlers) answer(ctx context.Context, req mcpgo.InputRequest) (mcpgo.InputResponse, error) {
	switch {
	case req.Method == mcpgo.MethodElicitationCreate && in.elicit != nil && req.Elicitation != nil:
		res, err := in.elicit.Elicit(ctx, mcpgo.ElicitationRequest{
			Request: mcpgo.Request{Method: string(req.Method)}, Params: *req.Elicitation})
		if err != nil || res == nil {
			return mcpgo.InputResponse{}, orNoAnswer(err)
		}
		return mcpgo.NewElicitationInputResponse(*res), nil
	case req.Method == mcpgo.MethodSamplingCreateMessage && in.sample != nil && req.Sampling != nil:
		res, err := in.sample.CreateMessage(ctx, mcpgo.CreateMessageRequest{
			Request: mcpgo.Request{Method: string(req.Method)}, CreateMessageParams: *req.Sampling})
		if err != nil || res == nil {
			return mcpgo.InputResponse{}, orNoAnswer(err)
		}
		return mcpgo.NewSamplingInputResponse(*res), nil
	case req.Method == mcpgo.MethodListRoots && in.roots != nil:
		res, err := in.roots.ListRoots(ctx, mcpgo.ListRootsRequest{Request: mcpgo.Request{Method: string(req.Method)}})
		if err != nil || res == nil {
			return mcpgo.InputResponse{}, orNoAnswer(err)
		}
		if res.Roots == nil {
			res.Roots = []mcpgo.Root{}
		}
		return mcpgo.NewRootsInputResponse(*res), nil
	}
	return mcpgo.InputResponse{}, fmt.Errorf("latch does not offer %s to this server", req.Method)
}

// maxInputRequests bounds the input requests a server may ask at once:
// each may open a box for the person.
const maxInputRequests = 8

// answerAll answers reqs but those in skip, one at a time in the order of
// their ids (each may be a box the person answers).
func (in inputHandlers) answerAll(ctx context.Context, reqs mcpgo.InputRequests, skip map[string]bool) (mcpgo.InputResponses, error) {
	ids := make([]string, 0, len(reqs))
	for id := range reqs {
		if !skip[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) > maxInputRequests {
		return nil, fmt.Errorf("%d requests at once (at most %d are answered)", len(ids), maxInputRequests)
	}
	sort.Strings(ids)
	out := mcpgo.InputResponses{}
	for _, id := range ids {
		resp, err := in.answer(ctx, reqs[id])
		if err != nil {
			return nil, err
		}
		out[id] = resp
	}
	return out, nil
}

func orNoAnswer(err error) error {
	if err == nil {
		return errors.New("no answer")
	}
	return err
}

// task is t in the shape the poll follows.
func (t extTask) task() mcpgo.Task {
	return mcpgo.Task{TaskId: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, PollInterval: t.PollIntervalMs}
}

// extRequest is req as a request of the tasks extension: the extension
// declared in its _meta's client capabilities (set by eraRequest), and a
// tasks/* request naming its task in Mcp-Name, as the extension's routing
// headers want, encoded as SEP-2243 encodes a header value (a server's
// task id that is no plain header value goes as =?base64?…?=).
func extRequest(req transport.JSONRPCRequest) transport.JSONRPCRequest {
	params, ok := req.Params.(map[string]any)
	if !ok {
		return req
	}
	if meta, ok := params["_meta"].(map[string]any); ok {
		if caps, ok := meta[mcpgo.MetaKeyClientCapabilities].(mcpgo.ClientCapabilities); ok {
			ext := map[string]any{tasksExtension: map[string]any{}}
			for k, v := range caps.Extensions {
				ext[k] = v
			}
			caps.Extensions = ext
			meta[mcpgo.MetaKeyClientCapabilities] = caps
		}
	}
	if id, ok := params["taskId"].(string); ok && strings.HasPrefix(req.Method, "tasks/") {
		if req.Header == nil {
			req.Header = http.Header{}
		}
		if name, ok := mcpgo.EncodeHeaderValue(id); ok {
			req.Header.Set(mcpgo.HeaderName, name)
		}
	}
	return req
}

// maxInputRounds bounds how many times a task call of the extension is
// asked for input (input_required) before its task is created.
const maxInputRounds = 8

// extCall sends a task call of the extension: a server may first ask for
// input (SEP-2322: resultType "input_required", its requests and an
// opaque requestState), answered through the connection's handlers and
// sent back with the same call, before it creates the task. Its answer
// is the last round's result, read by createdTask.
func (m *Manager) extCall(ctx context.Context, s *server, c *conn, params map[string]any) (json.RawMessage, error) {
	for round := 0; ; round++ {
		var raw json.RawMessage
		if err := m.taskRequest(ctx, s, c, mcpgo.MethodToolsCall, params, &raw); err != nil {
			return nil, err
		}
		var asked struct {
			ResultType    string              `json:"resultType"`
			InputRequests mcpgo.InputRequests `json:"inputRequests"`
			RequestState  string              `json:"requestState"`
		}
		if json.Unmarshal(raw, &asked) != nil || asked.ResultType != "input_required" || round == maxInputRounds {
			return raw, nil
		}
		responses, err := c.inputs.answerAll(ctx, asked.InputRequests, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("its request for input was not answered: %s", m.red.apply(err.Error()))
		}
		next := map[string]any{}
		for k, v := range params {
			if k != "_meta" {
				next[k] = v
			}
		}
		next["inputResponses"] = responses
		if asked.RequestState != "" {
			next["requestState"] = asked.RequestState
		}
		params = next
	}
}

// extGet asks tasks/get once; the task's end comes with it.
func (t *taskPoll) extGet(ctx context.Context) (mcpgo.Task, error) {
	var got extTask
	if err := t.m.taskRequest(ctx, t.s, t.c, mcpgo.MethodTasksGet, map[string]any{"taskId": t.id}, &got); err != nil {
		return mcpgo.Task{}, err
	}
	t.end = got
	return got.task(), nil
}

// extEnded is what a task of the extension that reached a final status
// gives the call: the result inlined in the last tasks/get (a tool's own
// error result included, which the model reads), or the error that says
// it failed or was cancelled. A task that ended before it was polled
// (its CreateTaskResult already final) is asked once for what it inlines.
func (t *taskPoll) extEnded(ctx context.Context, task mcpgo.Task) (*Result, error) {
	if t.end.TaskID == "" {
		got, err := t.extGet(ctx)
		if err != nil {
			return nil, t.requestError(ctx, err)
		}
		task = got
	}
	switch task.Status {
	case mcpgo.TaskStatusCompleted:
		raw := t.end.Result
		res, err := mcpgo.ParseCallToolResult(&raw)
		if err != nil || len(raw) == 0 {
			return nil, fmt.Errorf("task %s on %s completed without a tool result", t.m.red.cut(t.id, maxTaskText), t.s.cfg.Name)
		}
		return convertResult(res, t.m.opts.MaxResultBytes, t.m.red), nil
	case mcpgo.TaskStatusFailed:
		msg := task.StatusMessage
		if t.end.Error != nil {
			msg = t.end.Error.Message
		}
		return nil, fmt.Errorf("%w on %s: %s", ErrTaskFailed, t.s.cfg.Name, orNone(t.capped(msg)))
	}
	return nil, fmt.Errorf("%w on %s: %s", ErrTaskCancelled, t.s.cfg.Name, orNone(t.capped(task.StatusMessage)))
}

// extAnswer answers the input requests of a task of the extension that
// waits for input (a form, a sample, the roots), each through the
// connection's handlers, and sends the answers with tasks/update; the
// task's state is then polled on. A request already answered is not
// asked again (the next tasks/get may still list it). Bounded by ctx
// alone: a form waits for the person, whose Esc ends it.
func (t *taskPoll) extAnswer(ctx context.Context) error {
	if t.answered == nil {
		t.answered = map[string]bool{}
	}
	responses, err := t.c.inputs.answerAll(ctx, t.end.InputRequests, t.answered)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return t.extInput(t.m.red.apply(err.Error()))
	}
	if len(responses) == 0 {
		return nil
	}
	var ack json.RawMessage
	if err := t.m.taskRequest(ctx, t.s, t.c, mcpgo.MCPMethod("tasks/update"), map[string]any{"taskId": t.id, "inputResponses": responses}, &ack); err != nil {
		return t.requestError(ctx, err)
	}
	for id := range responses {
		t.answered[id] = true
	}
	return nil
}

// extInput is the error of a task of the extension that asked for input
// latch could not give (why): the task is cancelled on the server rather
// than left waiting for an answer that never comes, and the person and
// the model are told why.
func (t *taskPoll) extInput(why string) error {
	ctx, cancel := context.WithTimeout(context.Background(), taskCancelWait)
	defer cancel()
	var ack json.RawMessage
	_ = t.m.taskRequest(ctx, t.s, t.c, mcpgo.MethodTasksCancel, map[string]any{"taskId": t.id}, &ack)
	t.report(mcpgo.Task{TaskId: t.id, Status: mcpgo.TaskStatusCancelled, StatusMessage: "its request for input was not answered: " + why}, false)
	return fmt.Errorf("%w on %s: its request for input was not answered: %s", ErrTaskCancelled, t.s.cfg.Name, why)
}
