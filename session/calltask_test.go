package session_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// taskRig is a logging session in auto mode holding a TaskServer over
// streamable HTTP (2025-11-25), and the fake Ollama scripting the model.
type taskRig struct {
	t     *testing.T
	ol    *ollamatest.Server
	tasks *mcptestutil.TaskServer
	dir   string
	o     session.Options
	sess  *session.Session
	r     *reader
}

// newTaskRig starts the server (its slow tool runs for d; stateless: any
// client may poll a task, as after a restart) and a session on it.
func newTaskRig(t *testing.T, d time.Duration, plant string, stateless bool) *taskRig {
	t.Helper()
	ts := mcptestutil.NewTaskServer(d, plant)
	h := servertest.NewTestStreamableHTTPServer(ts.MCPServer, mcpserver.WithStateLess(stateless))
	t.Cleanup(h.Close)
	ol := newServer(t, toolsModel)
	rig := &taskRig{t: t, ol: ol, tasks: ts, dir: t.TempDir()}
	rig.o = session.Options{Client: ol.Client(), Host: ol.Host(), Model: toolsModel.Name, LogDir: rig.dir,
		Policy: permissions.Policy{Mode: permissions.Auto},
		Servers: []session.ServerConfig{{Name: "tasks", Transport: mcp.TransportHTTP, URL: h.URL + "/mcp",
			Protocol: mcp.ProtocolLegacy, Timeout: 5 * time.Second}}}
	rig.sess = session.New(rig.o)
	rig.r = startTasks(t, rig.sess)
	return rig
}

// startTasks starts s and its servers, and waits for the task tools.
func startTasks(t *testing.T, s *session.Session) *reader {
	t.Helper()
	t.Cleanup(s.Close)
	r := newReader(t, s)
	s.Start()
	s.StartServers()
	mcptestutil.WaitFor(t, timeout, "the task server's tools", func() bool {
		tools, _ := s.Tools("")
		return len(tools) == 3
	})
	return r
}

// taskEvents are the tool_task events of a call.
func taskEvents(evs []session.Event, callID string) []*session.ToolTaskEvent {
	var out []*session.ToolTaskEvent
	for _, e := range of[*session.ToolTaskEvent](evs) {
		if e.CallID == callID {
			out = append(out, e)
		}
	}
	return out
}

// loggedTasks are the tool_task lines of the session's log.
func loggedTasks(t *testing.T, dir, id string) []session.ToolTaskEvent {
	t.Helper()
	var out []session.ToolTaskEvent
	for _, line := range logLines(t, logFile(dir, id)) {
		var e session.ToolTaskEvent
		if err := json.Unmarshal([]byte(line), &e); err == nil && e.Type == session.TypeToolTask {
			out = append(out, e)
		}
	}
	return out
}

// TestTaskCallLoggedPolledAndAnswered: the model calls a tool that runs
// as a task: the task's id is on disk before it is polled, the card's
// events follow its status, the model gets the tool's result, and the log
// holds the task's start and end.
func TestTaskCallLoggedPolledAndAnswered(t *testing.T) {
	t.Parallel()
	rig := newTaskRig(t, 700*time.Millisecond, "", false)
	rig.ol.Script(callsTurn(toolCall("call_task0001", "tasks__slow")), ollamatest.TextTurn("It finished."))
	send(t, rig.sess, "run the slow thing")
	evs := rig.r.turn()
	finished(t, evs, "It finished.")
	tes := taskEvents(evs, "call_task0001")
	created := rig.tasks.Created()
	if len(tes) < 2 || !tes[0].Started || len(created) != 1 || tes[0].TaskID != created[0] {
		t.Fatalf("tool_task events %+v, server created %v", tes, created)
	}
	if last := tes[len(tes)-1]; last.Status != session.TaskCompleted {
		t.Fatalf("last status %+v", last)
	}
	reqs := rig.ol.WaitRequests(2, timeout)
	if m := onlyToolMessage(t, reqs[1], "call_task0001", "tasks__slow"); m.Content != "slow done 1" {
		t.Fatalf("the model was told %q", m.Content)
	}
	logged := loggedTasks(t, rig.dir, rig.sess.ID())
	if len(logged) != 2 || !logged[0].Started || logged[0].TaskID != created[0] || logged[1].Status != session.TaskCompleted {
		t.Fatalf("logged tool_task lines %+v, want the start and the end", logged)
	}
}

// TestTaskCallCancelledByEsc: Esc on a running task call cancels the task
// on the server; the card's last status and the model both say so.
func TestTaskCallCancelledByEsc(t *testing.T) {
	t.Parallel()
	rig := newTaskRig(t, time.Minute, "", false)
	rig.ol.Script(callsTurn(toolCall("call_task0002", "tasks__slow")), ollamatest.TextTurn("You stopped it."))
	send(t, rig.sess, "run the slow thing")
	evs := rig.r.until(func(e session.Event) bool {
		te, ok := e.(*session.ToolTaskEvent)
		return ok && te.Started
	})
	id := taskEvents(evs, "call_task0002")[0].TaskID
	if !rig.sess.CancelTools() {
		t.Fatal("CancelTools found no running call")
	}
	evs = rig.r.turn()
	finished(t, evs, "You stopped it.")
	if got := rig.tasks.Cancelled(); len(got) != 1 || got[0] != id {
		t.Fatalf("the server cancelled %v, want [%s]", got, id)
	}
	tes := taskEvents(evs, "call_task0002")
	if len(tes) == 0 || tes[len(tes)-1].Status != session.TaskCancelled {
		t.Fatalf("tool_task events %+v, want the task cancelled", tes)
	}
	reqs := rig.ol.WaitRequests(2, timeout)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], "call_task0002", "tasks__slow").Content)
	containsAll(t, msg, "cancelled", "task was cancelled on the server")
}

// TestTaskFailedSaysSo: a task the server reports failed says so to the
// model and on its events, its credential redacted everywhere.
func TestTaskFailedSaysSo(t *testing.T) {
	t.Parallel()
	const token = "tok-task-fail-4417"
	rig := newTaskRig(t, time.Second, mcptestutil.Plant(token), false)
	rig.sess.Close()
	rig.o.Servers[0].Token = token
	rig.sess = session.New(rig.o)
	rig.r = startTasks(t, rig.sess)
	rig.ol.Script(callsTurn(toolCall("call_task0003", "tasks__broken")), ollamatest.TextTurn("It broke."))
	send(t, rig.sess, "run the broken thing")
	evs := rig.r.turn()
	finished(t, evs, "It broke.")
	tes := taskEvents(evs, "call_task0003")
	if len(tes) == 0 || tes[len(tes)-1].Status != session.TaskFailed || !strings.Contains(tes[len(tes)-1].Message, "broken") {
		t.Fatalf("tool_task events %+v, want failed with the server's message", tes)
	}
	reqs := rig.ol.WaitRequests(2, timeout)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], "call_task0003", "tasks__broken").Content)
	containsAll(t, msg, "failed", "the task failed", "broken")
	for _, line := range logLines(t, logFile(rig.dir, rig.sess.ID())) {
		if strings.Contains(line, token) {
			t.Fatalf("the credential reached the log: %s", line)
		}
	}
	for _, e := range tes {
		d := session.Display(e).(*session.ToolTaskEvent)
		if f := mcptestutil.FirstForbidden(d.Message); f != "" || strings.Contains(d.Message, token) {
			t.Fatalf("the status message as shown holds %q: %q", f, d.Message)
		}
	}
}

// TestTaskResumedAfterQuitIsPolledOnce: latch quits while a call runs as
// a task; the task is left running, and the session log holds its id and
// no result. --resume polls the same task (it is not a call in doubt) and
// gives the model its result: the tool ran once, one task was created.
func TestTaskResumedAfterQuitIsPolledOnce(t *testing.T) {
	t.Parallel()
	rig := newTaskRig(t, 2*time.Second, "", true)
	rig.ol.Script(callsTurn(toolCall("call_task0004", "tasks__slow")), ollamatest.TextTurn("Got it after the restart."))
	send(t, rig.sess, "run the slow thing")
	rig.r.until(func(e session.Event) bool {
		te, ok := e.(*session.ToolTaskEvent)
		return ok && te.Started
	})
	id := rig.sess.ID()
	rig.sess.Close()
	if got := rig.tasks.Cancelled(); len(got) != 0 {
		t.Fatalf("quitting cancelled the task on the server: %v", got)
	}
	for _, line := range logLines(t, logFile(rig.dir, id)) {
		if strings.Contains(line, `"type":"tool_result"`) {
			t.Fatalf("quitting logged a result for the running task: %s", line)
		}
	}

	s, res := resume(t, rig.o, rig.dir, id)
	if len(res.InDoubt) != 0 {
		t.Fatalf("calls in doubt %+v: a logged task is polled, not in doubt", res.InDoubt)
	}
	r := startTasks(t, s)
	if !s.Continue() {
		t.Fatal("the resumed turn did not go on")
	}
	evs := r.turn()
	finished(t, evs, "Got it after the restart.")
	tes := taskEvents(evs, "call_task0004")
	if len(tes) == 0 || !tes[len(tes)-1].Resumed || tes[len(tes)-1].Status != session.TaskCompleted {
		t.Fatalf("tool_task events %+v, want the same task polled to its end", tes)
	}
	reqs := rig.ol.WaitRequests(2, timeout)
	if m := onlyToolMessage(t, reqs[1], "call_task0004", "tasks__slow"); m.Content != "slow done 1" {
		t.Fatalf("the model was told %q", m.Content)
	}
	if n, created := rig.tasks.Runs(), rig.tasks.Created(); n != 1 || len(created) != 1 {
		t.Fatalf("the tool ran %d times, %d tasks created", n, len(created))
	}
}

// TestTaskResumedUnknownToTheServer: a server that no longer knows the
// task (mcp-go ties it to the old HTTP session) leaves the call's outcome
// unknown: the person and the model are told, and the tool is not called
// again.
func TestTaskResumedUnknownToTheServer(t *testing.T) {
	t.Parallel()
	rig := newTaskRig(t, 2*time.Second, "", false)
	rig.ol.Script(callsTurn(toolCall("call_task0005", "tasks__slow")), ollamatest.TextTurn("Unknown, then."))
	send(t, rig.sess, "run the slow thing")
	rig.r.until(func(e session.Event) bool {
		te, ok := e.(*session.ToolTaskEvent)
		return ok && te.Started
	})
	id := rig.sess.ID()
	rig.sess.Close()

	s, _ := resume(t, rig.o, rig.dir, id)
	r := startTasks(t, s)
	if !s.Continue() {
		t.Fatal("the resumed turn did not go on")
	}
	evs := r.turn()
	finished(t, evs, "Unknown, then.")
	notices := of[*session.Notice](evs)
	if len(notices) == 0 || !strings.Contains(notices[len(notices)-1].Text, "outcome unknown") {
		t.Fatalf("notices %+v, want the outcome unknown", notices)
	}
	reqs := rig.ol.WaitRequests(2, timeout)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], "call_task0005", "tasks__slow").Content)
	containsAll(t, msg, "outcome unknown", "no longer knows the task")
	if n := rig.tasks.Runs(); n != 1 || len(rig.tasks.Created()) != 1 {
		t.Fatalf("the tool ran %d times", n)
	}
}
