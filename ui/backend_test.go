package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// *session.Session is every part of the backend.
var (
	_ Chat        = (*session.Session)(nil)
	_ Models      = (*session.Session)(nil)
	_ Servers     = (*session.Session)(nil)
	_ Permissions = (*session.Session)(nil)
	_ Decisions   = (*session.Session)(nil)
	_ Resume      = (*session.Session)(nil)
	_ Backend     = (*session.Session)(nil)
)

// serversOnly is a fake of the Servers part alone.
type serversOnly struct {
	statuses []session.ServerStatus
	tools    []session.Tool
	logs     []string
}

func (f *serversOnly) ServerNames() []string {
	var names []string
	for _, s := range f.statuses {
		names = append(names, s.Name)
	}
	return names
}
func (f *serversOnly) Servers() []session.ServerStatus      { return f.statuses }
func (f *serversOnly) ConnectServer(string) error           { return nil }
func (f *serversOnly) CloseServer(string) error             { return nil }
func (f *serversOnly) SetToken(string, string) error        { return nil }
func (f *serversOnly) Tools(string) ([]session.Tool, error) { return f.tools, nil }
func (f *serversOnly) ServerLogs(string) ([]string, error)  { return f.logs, nil }
func (f *serversOnly) WaitServers(context.Context)          {}

// The server commands need the Servers part only: a model with nothing
// else behind it runs them.
func TestServerCommandsNeedOnlyServers(t *testing.T) {
	m := New(Options{Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.srv = &serversOnly{
		statuses: []session.ServerStatus{{Name: "notes", Transport: "stdio", State: session.StateConnected, Tools: 2}},
		tools:    []session.Tool{{Name: "notes__read", ReadOnly: true}},
		logs:     []string{"started"},
	}
	last := func() string { return m.chat.entries[len(m.chat.entries)-1].text }
	for line, want := range map[string]string{
		"/servers":    "connected (2 tools)",
		"/tools":      "notes__read [read-only]",
		"/logs notes": "log of notes:\nstarted",
		"/logs nope":  `no server "nope" (servers: notes)`,
	} {
		m.runCommand(line)
		if !strings.Contains(last(), want) {
			t.Errorf("%s: %q, want %q in it", line, last(), want)
		}
	}
	if got := m.candidates("/connect "); len(got) != 2 || got[0].text != "/connect notes" || got[1].text != "/connect all" {
		t.Errorf("completion of /connect: %v", got)
	}
}

// heldClear is a session whose Clear, once it has cancelled the turn,
// waits until the test lets it go, as a turn slow to wind down makes it.
type heldClear struct {
	*session.Session
	release chan struct{}
}

func (h *heldClear) Clear() {
	h.Cancel()
	<-h.release
	h.Session.Clear()
}

// /clear during a slow reply returns from Update at once: the session's
// Clear (cancel the turn, wait for its end) runs in a command, whose
// message empties the chat. A message typed meanwhile is queued, and sent
// into the fresh conversation, whichever comes first of the command's
// message and the cancelled turn's end.
func TestClearNeverBlocksUpdate(t *testing.T) {
	for _, endFirst := range []bool{true, false} {
		name := map[bool]string{true: "turn end first", false: "cleared first"}[endFirst]
		t.Run(name, func(t *testing.T) { testClearNeverBlocks(t, endFirst) })
	}
}

func testClearNeverBlocks(t *testing.T, endFirst bool) {
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(srv.Close)
	sess := session.New(session.Options{Client: srv.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261129-120000-abcdef"})
	t.Cleanup(sess.Close)
	sub := sess.Subscribe()
	// A reply of 1,000 tokens, 10 ms apart: ten seconds unless cancelled.
	srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("slow ", 1000)), Delay: 10 * time.Millisecond},
		ollamatest.TextTurn("fresh"))
	b := &heldClear{Session: sess, release: make(chan struct{})}
	h := &harness{t: t, srv: srv, sess: sess, sub: sub,
		m: New(Options{Backend: b, Events: sub, Styles: themes.Default(), FrameInterval: -1})}
	h.m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	feedUntil := func(done func(session.Event) bool) {
		t.Helper()
		for {
			evs, ok := sub.Next(ctx)
			if !ok {
				t.Fatal("the event wanted did not come within 10s")
			}
			h.m.Update(eventsMsg{events: evs})
			for _, e := range evs {
				if done(e) {
					return
				}
			}
		}
	}

	h.typeText("first question")
	h.key(tea.KeyEnter)
	feedUntil(func(e session.Event) bool { _, ok := e.(*session.AssistantDelta); return ok })

	h.typeText("/clear")
	returned := make(chan tea.Cmd, 1)
	go func() { returned <- h.key(tea.KeyEnter) }()
	var clear tea.Cmd
	select {
	case clear = <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("/clear blocked Update while the session's Clear waited")
	}
	if clear == nil || !sess.Running() {
		t.Fatalf("Update returned no command (%v), or the slow reply already ended (running %v)", clear != nil, sess.Running())
	}
	if !strings.Contains(h.m.View(), "first question") {
		t.Fatalf("the chat was emptied before the session forgot it:\n%s", h.m.View())
	}

	// Typed while the session clears: queued, not sent.
	h.typeText("second question")
	h.key(tea.KeyEnter)
	if len(h.m.queued) != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("sent while clearing: queued %q, %d requests", h.m.queued, len(srv.Requests()))
	}

	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- clear() }()
	if endFirst {
		// The cancelled turn ends before the session has forgotten it:
		// the queue waits for that.
		feedUntil(func(e session.Event) bool { _, ok := e.(*session.TurnDone); return ok })
		if len(h.m.queued) != 1 || len(srv.Requests()) != 1 {
			t.Fatalf("sent before the session forgot the conversation: queued %q, %d requests", h.m.queued, len(srv.Requests()))
		}
	}
	close(b.release)
	var cleared tea.Msg
	select {
	case cleared = <-msgs:
	case <-ctx.Done():
		t.Fatal("the clear command did not end")
	}
	h.m.Update(cleared)
	// The queued message may already be sent, and even answered: what
	// must be gone is the first question.
	for _, msg := range sess.History() {
		if strings.Contains(msg.Content, "first question") {
			t.Fatalf("/clear left the conversation in the session: %+v", sess.History())
		}
	}
	if v := h.m.View(); strings.Contains(v, "first question") {
		t.Fatalf("/clear left the conversation on screen:\n%s", v)
	}
	feedUntil(func(e session.Event) bool {
		u, ok := e.(*session.UserMessage)
		return ok && u.Text == "second question"
	})
	h.untilTurnDone()
	reqs := srv.WaitRequests(2, 5*time.Second)
	if len(reqs) != 2 || len(reqs[1].Messages) != 1 || reqs[1].Messages[0].Content != "second question" {
		t.Fatalf("the queued message did not go alone into the fresh conversation: %+v", reqs)
	}
	if !strings.Contains(h.m.View(), "fresh") {
		t.Fatalf("the reply to the queued message is not shown:\n%s", h.m.View())
	}
}
