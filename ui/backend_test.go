package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/mcptestutil"
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
	// A reply of 1,000 tokens, 100 ms apart: beyond the hang bound unless
	// cancelled, so that it is still running when /clear comes however
	// slow the machine.
	srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("slow ", 1000)), Delay: 100 * time.Millisecond},
		ollamatest.TextTurn("fresh"))
	b := &heldClear{Session: sess, release: make(chan struct{})}
	h := &harness{t: t, srv: srv, sess: sess, sub: sub,
		m: New(Options{Backend: b, Events: sub, Styles: themes.Default(), FrameInterval: -1})}
	h.m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	isType := func(want session.Event) func(session.Event) bool {
		return func(e session.Event) bool { return fmt.Sprintf("%T", e) == fmt.Sprintf("%T", want) }
	}
	bound := mcptestutil.HangBound(0) // a hang's bound, not a measure

	h.typeText("first question")
	h.key(tea.KeyEnter)
	h.untilEvent(isType(&session.AssistantDelta{}))

	h.typeText("/clear")
	returned := make(chan tea.Cmd, 1)
	go func() { returned <- h.key(tea.KeyEnter) }()
	// The session's Clear is held until the test lets it go: Update
	// returning at all shows it did not wait for it.
	var clear tea.Cmd
	select {
	case clear = <-returned:
	case <-time.After(bound):
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
		h.untilEvent(isType(&session.TurnDone{}))
		if len(h.m.queued) != 1 || len(srv.Requests()) != 1 {
			t.Fatalf("sent before the session forgot the conversation: queued %q, %d requests", h.m.queued, len(srv.Requests()))
		}
	}
	close(b.release)
	var cleared tea.Msg
	select {
	case cleared = <-msgs:
	case <-time.After(bound):
		t.Fatalf("the clear command did not end within %v\n%s", bound, h.report())
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
	if endFirst {
		// The queued message went as the chat was emptied: let its turn
		// end before reading on, so that the whole of it comes in one
		// batch, as it does when the test is slower than the fake Ollama
		// (3 runs in 50 under load failed so, waiting for a TurnDone the
		// wait before had already taken).
		mcptestutil.WaitFor(t, bound, "the queued message's turn to end", func() bool {
			return len(srv.Requests()) == 2 && !sess.Running()
		})
	}
	// The queued message's turn, to its end: the two waits see every
	// event once, however the session batched them (the whole fresh turn
	// comes in one batch when the test is slower than the fake Ollama).
	var fresh int
	h.untilEvent(func(e session.Event) bool {
		u, ok := e.(*session.UserMessage)
		if ok && u.Text == "second question" {
			fresh = u.Turn
		}
		return fresh != 0
	})
	h.untilEvent(func(e session.Event) bool { d, ok := e.(*session.TurnDone); return ok && d.Turn == fresh })
	reqs := srv.WaitRequests(2, bound)
	if len(reqs) != 2 || len(reqs[1].Messages) != 1 || reqs[1].Messages[0].Content != "second question" {
		t.Fatalf("the queued message did not go alone into the fresh conversation: %+v", reqs)
	}
	if !strings.Contains(h.m.View(), "fresh") {
		t.Fatalf("the reply to the queued message is not shown:\n%s", h.m.View())
	}
}
