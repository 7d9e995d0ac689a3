package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// fixedNow is the clock of golden views.
var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TestGoldenCardStates draws a card in every state it can be in.
func TestGoldenCardStates(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	defer ol.Close()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", ID: "20261129-120000-abcdef"})
	defer sess.Close()
	clock := fixedNow
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return clock }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 70})
	// The events are shared with TestScreens (screens_test.go).
	evs := cardEvents()

	clock = fixedNow.Add(1500 * time.Millisecond) // the running call has run 1.5 s
	m.Update(eventsMsg{events: evs})
	pastGuard(m)
	t.Run("modal_parked", func(t *testing.T) { golden.RequireEqual(t, []byte(m.View())) })
	m.Update(tea.KeyMsg{Type: tea.KeyEsc}) // decide later
	t.Run("cards", func(t *testing.T) { golden.RequireEqual(t, []byte(m.View())) })
}

// toolServer is an in-process MCP server whose write tool counts its runs.
type toolServer struct {
	mu     sync.Mutex
	writes []string
}

func (w *toolServer) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.writes)
}

func newToolServer() (*mcpserver.MCPServer, *toolServer) {
	w := &toolServer{}
	s := mcpserver.NewMCPServer("notes", "1.0")
	s.AddTool(mcp.NewTool("read_note", mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("the note says hi"), nil
		})
	s.AddTool(mcp.NewTool("write_note", mcp.WithString("text", mcp.Required()), mcp.WithDestructiveHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			w.mu.Lock()
			w.writes = append(w.writes, req.GetString("text", ""))
			w.mu.Unlock()
			return mcp.NewToolResultText("written"), nil
		})
	return s, w
}

func toolCall(id, name string, kv ...string) ollamatest.Chunk {
	args := api.NewToolCallFunctionArguments()
	for i := 0; i+1 < len(kv); i += 2 {
		args.Set(kv[i], kv[i+1])
	}
	return ollamatest.Chunk{ToolCalls: []api.ToolCall{{ID: id, Function: api.ToolCallFunction{Name: name, Arguments: args}}}}
}

// toolHarness is a UI over a session with the notes server in mode.
func toolHarness(t *testing.T, mode permissions.Mode) (*harness, *toolServer) {
	t.Helper()
	return toolHarnessWith(t, session.Options{ID: "20261129-120000-abcdef",
		Policy: permissions.Policy{Mode: mode, ServerAllow: map[string][]string{"notes": {"read_note"}}}})
}

// toolHarnessWith is toolHarness with session options of its own (the
// client, model and notes server are set here; o's servers are added
// after it).
func toolHarnessWith(t *testing.T, o session.Options) (*harness, *toolServer) {
	t.Helper()
	return toolHarnessUI(t, o, Options{})
}

// toolHarnessUI is toolHarnessWith with UI options of its own (the
// backend, events, styles and frame interval are set here).
func toolHarnessUI(t *testing.T, o session.Options, uo Options) (*harness, *toolServer) {
	t.Helper()
	srv, w := newToolServer()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	o.Client, o.Host, o.Model = ol.Client(), "127.0.0.1:11434", "qwen3:8b"
	o.Servers = append([]session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}, o.Servers...)
	sess := session.New(o)
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	uo.Backend, uo.Events, uo.Styles, uo.FrameInterval = sess, sub, themes.Default(), -1
	m := New(uo)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c >= 1 }) // the notes server; o.Servers may come after
	return h, w
}

func TestApproveModeParksUntilApproved(t *testing.T) {
	h, w := toolHarness(t, permissions.Approve)
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_w1", "notes__write_note", "text", "hello")}},
		ollamatest.TextTurn("I wrote the note."),
	)
	h.typeText("write a note")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	if v := h.m.View(); !strings.Contains(v, "Approve this tool call? (a1)") || !strings.Contains(v, `"text": "hello"`) {
		t.Fatalf("no approval box:\n%s", v)
	}
	h.key(tea.KeyEsc) // decide later
	if w.count() != 0 {
		t.Fatal("the call ran before a decision")
	}
	h.command("/approvals")
	if v := allText(h.m); !strings.Contains(v, "a1  notes__write_note") || !strings.Contains(h.m.View(), "⏸ 1 pending") {
		t.Fatalf("/approvals:\n%s\n%s", v, h.m.View())
	}
	h.command("/approve a1")
	h.untilTurnDone()
	if w.count() != 1 {
		t.Fatalf("the approved call ran %d times", w.count())
	}
	if v := h.m.View(); !strings.Contains(v, "I wrote the note.") || !strings.Contains(v, "✓ notes__write_note") {
		t.Fatalf("after approval:\n%s", v)
	}
	h.command("/approve a1")
	if !strings.Contains(h.m.View(), "approval a1") || w.count() != 1 {
		t.Fatalf("a second approval must not run it again:\n%s", h.m.View())
	}
}

func TestAskModalKeys(t *testing.T) {
	h, w := toolHarness(t, permissions.Ask)
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "one")}},
		ollamatest.TextTurn("Done."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_2", "notes__write_note", "text", "two")}},
		ollamatest.TextTurn("Not written."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_3", "notes__write_note", "text", "three")}},
		ollamatest.TextTurn("Written, and allowed from now on."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_4", "notes__write_note", "text", "four")}},
		ollamatest.TextTurn("Written without asking."),
	)
	ask := func(prompt string, answer rune) {
		h.typeText(prompt)
		h.key(tea.KeyEnter)
		h.until(func() bool { return h.m.modal != nil })
		pastGuard(h.m)
		if !strings.Contains(h.m.View(), "Allow this tool call?") || !strings.Contains(h.m.View(), "destructive") {
			t.Fatalf("no ask box:\n%s", h.m.View())
		}
		h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{answer}})
		h.untilTurnDone()
	}
	t.Run("modal", func(t *testing.T) {
		h.typeText("write one")
		h.key(tea.KeyEnter)
		h.until(func() bool { return h.m.modal != nil })
		pastGuard(h.m)
		golden.RequireEqual(t, []byte(h.m.View()))
		h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}})
		h.untilTurnDone()
	})
	if w.count() != 1 {
		t.Fatalf("y: %d runs", w.count())
	}
	ask("write two", 'n')
	if w.count() != 1 || !strings.Contains(h.m.View(), "denied by user") {
		t.Fatalf("n: %d runs\n%s", w.count(), h.m.View())
	}
	ask("write three", 'a')
	if w.count() != 2 {
		t.Fatalf("a: %d runs", w.count())
	}
	h.typeText("write four")
	h.key(tea.KeyEnter)
	h.untilTurnDone()
	if w.count() != 3 || h.m.modal != nil {
		t.Fatalf("after a, the tool should run without asking: %d runs", w.count())
	}
}

func TestReadOnlyDeniesAndModeCommand(t *testing.T) {
	h, w := toolHarness(t, permissions.ReadOnly)
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_r", "notes__read_note"), toolCall("call_w", "notes__write_note", "text", "x")}},
		ollamatest.TextTurn("I could read but not write."),
	)
	h.send("read then write")
	v := h.m.View()
	if w.count() != 0 || !strings.Contains(v, "✓ notes__read_note") || !strings.Contains(v, "⛔ notes__write_note") ||
		!strings.Contains(v, "denied by policy") {
		t.Fatalf("read_only:\n%s", v)
	}
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1]; got.Role != "tool" || !strings.Contains(got.Content, `"error"`) || !strings.Contains(got.Content, "read_only") {
		t.Fatalf("the model was not told why: %+v", got)
	}
	h.command("/mode")
	h.command("/mode notes ask")
	h.command("/mode yolo")
	h.command("/allow")
	all := allText(h.m)
	for _, want := range []string{"mode: read_only", "mode of notes: ask", `"yolo" is not a mode`, "notes__read_note", "server allow"} {
		if !strings.Contains(all, want) {
			t.Errorf("lacks %q:\n%s", want, all)
		}
	}
	h.command("/mode auto")
	if !strings.Contains(h.m.View(), "│ auto │") {
		t.Fatalf("the status line should show the mode:\n%s", h.m.View())
	}
	// auto lets destructive tools run unasked: said when it is set.
	all = allText(h.m)
	if !strings.Contains(all, "⚠ auto: every tool now runs without asking, destructive ones too") {
		t.Errorf("/mode auto gave no warning:\n%s", all)
	}
	h.command("/mode notes auto")
	if all := allText(h.m); !strings.Contains(all, "⚠ auto: every tool of notes now runs without asking") {
		t.Errorf("/mode notes auto gave no warning:\n%s", all)
	}
}

// TestQuitKeepsAParkedCall: quitting while a call waits for approval
// ("decide later") leaves it parked for --continue, not cancelled.
func TestQuitKeepsAParkedCall(t *testing.T) {
	dir := t.TempDir()
	srv, w := newToolServer()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	o := session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", LogDir: dir,
		Servers: []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}},
		Policy:  permissions.Policy{Mode: permissions.Approve}}
	sess := session.New(o)
	sub := sess.Subscribe()
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	sess.Start()
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c >= 1 })
	ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_w1", "notes__write_note", "text", "hello")}})
	h.typeText("write a note")
	h.key(tea.KeyEnter)
	h.until(func() bool { return m.modal != nil })
	pastGuard(m)
	h.key(tea.KeyEsc) // decide later
	// The first Ctrl+C stops nothing (the turn waits for the decision:
	// cancelling it would void the approval); the second quits.
	h.key(tea.KeyCtrlC)
	if m.quitting || !sess.Running() {
		t.Fatalf("the first ctrl+c: quitting %v, the turn running %v", m.quitting, sess.Running())
	}
	if cmd := h.key(tea.KeyCtrlC); cmd == nil || !m.quitting {
		t.Fatal("ctrl+c did not quit")
	}
	// Give a cancel, if quitting sent one, time to void the approval.
	for deadline := time.Now().Add(time.Second); sess.Running() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	sess.Close() // what the program does after the UI quits
	s2, res, err := session.Resume(session.Options{Client: ol.Client(), Servers: o.Servers}, dir, sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if len(res.Pending) != 1 || res.Pending[0].ID != "a1" {
		t.Fatalf("after quitting, pending %+v: want a1 still parked", res.Pending)
	}
	if w.count() != 0 {
		t.Fatal("the parked call ran")
	}
}
