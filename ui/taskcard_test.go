package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// taskCardModel is a UI over a session without servers, its clock at
// fixedNow plus *clock, for cards fed their events by hand.
func taskCardModel(t *testing.T, clock *time.Duration) *Model {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", ID: "20261129-120000-abcdef"})
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1,
		Now: func() time.Time { return fixedNow.Add(*clock) }})
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 60})
	return m
}

// taskCall is the events of a call of tasks__slow that runs as a task,
// up to its statuses.
func taskCall(id, task string, statuses ...*session.ToolTaskEvent) []session.Event {
	h := session.Header{Time: fixedNow}
	evs := []session.Event{
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: id, Server: "tasks", Tool: "tasks__slow", Arguments: map[string]any{}},
		&session.PermissionEvent{Header: h, Turn: 1, CallID: id, Tool: "tasks__slow", Decision: "allowed", By: "policy", Mode: "auto"},
	}
	for i, st := range statuses {
		st.Header, st.CallID, st.Server, st.Tool, st.TaskID, st.Started = h, id, "tasks", "tasks__slow", task, i == 0
		evs = append(evs, st)
	}
	return evs
}

// TestGoldenTaskCards draws the cards of calls run as tasks: one working
// (its status and the server's message as last polled), one completed,
// one the server failed, one the person cancelled (Esc) on the server,
// and one polled again after a restart.
func TestGoldenTaskCards(t *testing.T) {
	var clock time.Duration
	m := taskCardModel(t, &clock)
	h := session.Header{Time: fixedNow}
	working := &session.ToolTaskEvent{Status: session.TaskWorking, Message: "copying 3 of 5 files"}
	var evs []session.Event
	evs = append(evs, taskCall("call_t1", "task-0001", &session.ToolTaskEvent{Status: session.TaskWorking}, working)...)
	evs = append(evs, taskCall("call_t2", "task-0002", &session.ToolTaskEvent{Status: session.TaskWorking},
		&session.ToolTaskEvent{Status: session.TaskCompleted})...)
	evs = append(evs, &session.ToolResultEvent{Header: h, Turn: 1, CallID: "call_t2", Tool: "tasks__slow", OK: true,
		DurationMS: 5012, Preview: "slow done 1", Size: 11})
	evs = append(evs, taskCall("call_t3", "task-0003", &session.ToolTaskEvent{Status: session.TaskWorking},
		&session.ToolTaskEvent{Status: session.TaskFailed, Message: "disk full"})...)
	evs = append(evs, &session.ToolResultEvent{Header: h, Turn: 1, CallID: "call_t3", Tool: "tasks__slow",
		Error: "failed: the task failed on tasks: disk full", DurationMS: 800})
	evs = append(evs, taskCall("call_t4", "task-0004", &session.ToolTaskEvent{Status: session.TaskWorking},
		&session.ToolTaskEvent{Status: session.TaskCancelled, Message: "Task cancelled by request"})...)
	evs = append(evs, &session.ToolResultEvent{Header: h, Turn: 1, CallID: "call_t4", Tool: "tasks__slow", Cancelled: true,
		Error: "cancelled: the user stopped this call, and its task was cancelled on the server", DurationMS: 1200})
	evs = append(evs, taskCall("call_t5", "task-0005", &session.ToolTaskEvent{Status: session.TaskWorking, Resumed: true})...)
	m.Update(eventsMsg{events: evs})
	clock = 2500 * time.Millisecond // the running ones have run 2.5 s
	golden.RequireEqual(t, []byte(m.View()))
}

// TestTaskCardInert: a hostile server's task id, status and status
// message reach the card inert.
func TestTaskCardInert(t *testing.T) {
	clock := time.Second
	m := taskCardModel(t, &clock)
	plant := mcptestutil.Plant("[redacted]")
	st := &session.ToolTaskEvent{Status: "working" + plant, Message: "msg " + plant}
	evs := taskCall("call_h1", "id "+plant, st)
	for i, e := range evs {
		evs[i] = session.Display(e)
	}
	m.Update(eventsMsg{events: evs})
	view := m.View()
	if f := mcptestutil.FirstForbidden(view); f != "" {
		t.Fatalf("the card shows %q", f)
	}
	if !strings.Contains(view, "task id") || !strings.Contains(view, "msg") {
		t.Fatalf("the card:\n%s", view)
	}
}

// TestTaskCardEscCancelsOnTheServer: the model calls a tool that runs as
// a task on a real server; its card shows the task working, Esc cancels
// the task on the server, and the card says so.
func TestTaskCardEscCancelsOnTheServer(t *testing.T) {
	tasks := mcptestutil.NewTaskServer(time.Minute, "")
	hs := servertest.NewTestStreamableHTTPServer(tasks.MCPServer)
	t.Cleanup(hs.Close)
	h, _ := toolHarnessWith(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto},
		Servers: []session.ServerConfig{{Name: "tasks", Transport: "http", URL: hs.URL + "/mcp", Protocol: "2025-11-25"}}})
	h.until(func() bool { tools, _ := h.sess.Tools("tasks"); return len(tools) == 3 })
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_t1", "tasks__slow")}}, ollamatest.TextTurn("Stopped."))
	h.typeText("run the slow job")
	h.key(tea.KeyEnter)
	h.until(func() bool { return strings.Contains(h.m.View(), "· working") })
	h.key(tea.KeyEsc)
	h.untilTurnDone()
	if got := tasks.Cancelled(); len(got) != 1 || !strings.Contains(h.m.View(), "task "+got[0]+" · cancelled on the server") {
		t.Fatalf("server cancelled %v; the screen:\n%s", got, h.m.View())
	}
}

// TestTaskCardResumed: latch quit while a call ran as a task; the resumed
// chat shows the call's card as polled again (not in doubt), then its one
// card completes with the same task's result: the tool ran once.
func TestTaskCardResumed(t *testing.T) {
	tasks := mcptestutil.NewTaskServer(1500*time.Millisecond, "")
	hs := servertest.NewTestStreamableHTTPServer(tasks.MCPServer, mcpserver.WithStateLess(true))
	t.Cleanup(hs.Close)
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_r1", "tasks__slow")}}, ollamatest.TextTurn("Done after all."))
	dir := t.TempDir()
	o := session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", LogDir: dir,
		Policy:  permissions.Policy{Mode: permissions.Auto},
		Servers: []session.ServerConfig{{Name: "tasks", Transport: "http", URL: hs.URL + "/mcp", Protocol: "2025-11-25"}}}
	first := session.New(o)
	sub := first.Subscribe()
	first.Start()
	first.StartServers()
	mcptestutil.WaitFor(t, 10*time.Second, "the task tools", func() bool { tools, _ := first.Tools(""); return len(tools) == 3 })
	if err := first.Send("run the slow job"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(0))
	defer cancel()
	for started := false; !started; {
		evs, ok := sub.Next(ctx)
		if !ok {
			t.Fatal("the task never started")
		}
		for _, e := range evs {
			if te, ok := e.(*session.ToolTaskEvent); ok && te.Started {
				started = true
			}
		}
	}
	first.Close()

	sess, res, err := session.Resume(o, dir, first.ID())
	if err != nil {
		t.Fatal(err)
	}
	hsub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: hsub, Styles: themes.Default(), FrameInterval: -1, Resumed: res})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := &harness{t: t, srv: ol, sess: sess, sub: hsub, m: m}
	if v := m.View(); !strings.Contains(v, "the task is polled again") || strings.Contains(v, "/retry") {
		t.Fatalf("the resumed screen:\n%s", v)
	}
	sess.StartServers()
	m.Update(m.continueResumed()())
	h.untilTurnDone()
	v := m.View()
	if !strings.Contains(v, "✓ tasks__slow · destructive — done") || !strings.Contains(v, "· completed · polled again after a restart") ||
		cardsOf(m, "call_r1") != 1 {
		t.Fatalf("the resumed call's card:\n%s", v)
	}
	if n := tasks.Runs(); n != 1 || len(tasks.Created()) != 1 {
		t.Fatalf("the tool ran %d times", n)
	}
}
