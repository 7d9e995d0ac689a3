package session

import (
	"context"
	"errors"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp"
)

// TypeToolTask is the type of a ToolTaskEvent.
const TypeToolTask = "tool_task"

// Task statuses, as servers report them (ToolTaskEvent.Status).
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// ToolTaskEvent is where a tool call run as a task stands on its server
// (MCP tasks: the tool supports or requires them), published when its
// status or message changes (not on every poll). The first, Started,
// carries the task's id and is logged, synced, before latch polls the
// task, and so is the last, that says how it ended: a resumed session
// polls the same task, and never calls the tool again. The statuses
// between are shown, not logged.
type ToolTaskEvent struct {
	Header
	CallID  string `json:"call_id"`
	Server  string `json:"server"`
	Tool    string `json:"tool"`
	TaskID  string `json:"task_id"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"` // the server's statusMessage
	Started bool   `json:"started,omitempty"`
	// Resumed is set on a status of a task a resumed session polls
	// again.
	Resumed bool `json:"resumed,omitempty"`
	// polled marks a status between the start and the end: shown, not
	// logged (a server may change its message on every poll).
	polled bool
}

// Ended says whether the task reached a final status.
func (e *ToolTaskEvent) Ended() bool {
	return e.Status == TaskCompleted || e.Status == TaskFailed || e.Status == TaskCancelled
}

// durable says whether the event is synced to the log: the task's start
// and its end.
func (e *ToolTaskEvent) durable() bool { return e.Started || e.Ended() }

// taskStatus publishes a task's status as the manager reports it.
func (s *Session) taskStatus(e mcp.TaskStatus) {
	s.mu.Lock()
	resumed := s.resumedTasks[e.CallID] == e.TaskID && e.TaskID != ""
	s.mu.Unlock()
	ev := &ToolTaskEvent{Header: s.header(TypeToolTask), CallID: e.CallID, Server: e.Server, Tool: e.Tool,
		TaskID: e.TaskID, Status: e.Status, Message: e.Message, Started: e.Started, Resumed: resumed}
	ev.polled = !ev.durable()
	s.publish(ev)
	if ev.Ended() {
		crashAt("task-ended")
	}
}

// resumedTask is the task a call started before latch stopped, if its id
// is in the log and its end is not: the call is polled, not run again.
func (s *Session) resumedTask(callID string) (taskID string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	taskID, ok = s.resumedTasks[callID]
	return taskID, ok
}

// pollResumed takes up the task of a call that was running as a task
// when latch stopped: it polls the same task and answers the call with
// its result, exactly once. The call was decided on and allowed before;
// it does not go through the gate again. A server that no longer knows
// the task leaves the call's outcome unknown: the person and the model
// are told so.
func (s *Session) pollResumed(ctx context.Context, c *toolCall, taskID string) (msg api.Message, answered bool) {
	s.publish(&Notice{Header: s.header(TypeNotice), Text: "call " + c.id + " (" + c.name +
		") was running as task " + taskID + " when latch stopped: latch polls that task again, and does not call the tool again"})
	start := time.Now()
	if c.known {
		s.el.callStarted(c.tool.Server)
		defer s.el.callEnded(c.tool.Server)
	}
	res, err := s.servers.ResumeTask(ctx, c.name, taskID, c.id)
	s.mu.Lock()
	delete(s.resumedTasks, c.id)
	s.mu.Unlock()
	if errors.Is(err, mcp.ErrTaskUnknown) || errors.Is(err, mcp.ErrNotConnected) || errors.Is(err, mcp.ErrUnknownTool) {
		msg := "outcome unknown: latch stopped while this call ran as task " + taskID + ", and " + err.Error() +
			"; it may or may not have run, and latch does not run it again on its own"
		s.publish(&Notice{Header: s.header(TypeNotice), Text: "call " + c.id + " (" + c.name + "): " + msg})
		s.fail(c, msg)
		return c.reply(errorJSON(msg)), true
	}
	res, why := s.finishCall(c, start, res, err)
	switch {
	case c.taskLeft:
		return api.Message{}, false
	case res == nil:
		return c.reply(errorJSON(why)), true
	}
	return c.reply(res.Text), true
}

// leavesTaskOwed says whether err is that of a task left running because
// latch is closing: the call gets no answer (nothing logged as its
// result), so the log leaves it owed, and a resume polls the task.
func (s *Session) leavesTaskOwed(err error) bool {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	return closing && errors.Is(err, mcp.ErrTaskLeft)
}

// callErrorText is what the model and the card read of a call that
// failed: a stop by the person says so, and so does a task the server
// reports failed or cancelled.
func callErrorText(err error) (msg string, cancelled bool) {
	switch {
	case errors.Is(err, mcp.ErrCancelled) && errors.Is(err, mcp.ErrTaskCancelled):
		return "cancelled: the user stopped this call, and its task was cancelled on the server", true
	case errors.Is(err, mcp.ErrTaskLeft):
		return "cancelled: the turn was cancelled while this call ran as a task; " + err.Error(), true
	case errors.Is(err, mcp.ErrCancelled):
		return "cancelled: the user stopped this call", true
	case errors.Is(err, mcp.ErrTaskCancelled):
		return "cancelled: " + err.Error(), true
	case errors.Is(err, mcp.ErrTaskFailed):
		return "failed: " + err.Error(), false
	}
	return err.Error(), false
}

// liveTasks are the tasks of calls the log shows started as tasks and
// not answered, by call id: a resume polls them (one that ended while
// latch was stopping still has its result on the server).
func (st *logState) liveTasks() map[string]string {
	out := map[string]string{}
	for id, task := range st.tasks {
		if !st.answered[id] {
			out[id] = task
		}
	}
	return out
}

// task notes the id of a task a call started.
func (st *logState) task(e *ToolTaskEvent) {
	if !e.Started || e.TaskID == "" {
		return
	}
	if st.tasks == nil {
		st.tasks = map[string]string{}
	}
	st.tasks[e.CallID] = e.TaskID
}
