package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// hostileSecret is the credential of another configured server, which the
// hostile server and the model both know and plant everywhere.
const hostileSecret = "vault-token-H0st1le-4242"

// TestHostileServerAndModel runs a real session in auto mode against a
// hostile in-process MCP server that puts the plant (escapes and the
// credential of another server) in every field it controls — tool names
// and descriptions, results, JSON-RPC errors, tool errors, progress, log
// messages, a result padded so the size cap falls inside the credential —
// and a model whose reply carries the plant too. It checks every surface:
// the screen (cards in every state, /servers, /tools, /logs, notices), the
// clipboard text, every event in its wire form (what --json and the log
// write) and the session log on disk.
func TestHostileServerAndModel(t *testing.T) {
	plant := mcptestutil.Plant(hostileSecret)
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	call := func(id, name string) api.ToolCall {
		return api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: name, Arguments: api.NewToolCallFunctionArguments()}}
	}
	ol.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
			call("c1", "hostile__leak"), call("c2", "hostile__fail_rpc"), call("c3", "hostile__fail_tool"),
			call("c4", "hostile__progress"), call("c5", "hostile__pad"),
		}}}},
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{Content: "the answer " + plant}}},
	)
	dir := t.TempDir()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261201-000000-host11", LogDir: dir, Policy: permissions.Policy{Mode: permissions.Auto},
		Truncate: true, // the padded result is longer than the context: let Ollama cut it, so the model answers
		Servers: []session.ServerConfig{
			{Name: "hostile", Transport: "inprocess", InProcess: mcptestutil.HostileServer(plant, 1<<20)},
			{Name: "vault", Transport: "http", URL: "https://vault.example/mcp", Token: hostileSecret, Disabled: true},
		}})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 300})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 })

	var events []session.Event
	var frames []string
	if err := sess.Send("go"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for done := false; !done; {
		evs, ok := sub.Next(ctx)
		if !ok {
			t.Fatalf("no turn_done; screen:\n%s", m.View())
		}
		events = append(events, evs...)
		m.Update(eventsMsg{events: evs})
		frames = append(frames, m.View())
		for _, e := range evs {
			if _, ok := e.(*session.TurnDone); ok {
				done = true
			}
		}
	}
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	frames = append(frames, m.View())
	for _, c := range []string{"/servers", "/tools hostile", "/logs hostile"} {
		h.command(c)
	}
	frames = append(frames, m.View(), allText(m))

	check := func(where, s string) {
		t.Helper()
		if strings.Contains(s, hostileSecret) {
			t.Errorf("%s: the credential leaked:\n%s", where, s)
		}
		if bad := mcptestutil.FirstForbidden(s); bad != "" {
			t.Errorf("%s: %q survived:\n%s", where, bad, s)
		}
	}
	for i, f := range frames {
		check("frame "+string(rune('0'+i%10)), f)
	}
	screen := allText(m)
	for _, want := range []string{"[redacted]", "result ␛", "rpc ", "tool ", "the answer", "hostile", "log "} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q: the test did not see that path", want)
		}
	}
	kinds := map[string]bool{}
	for _, e := range events {
		b, err := session.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		check("event "+e.Head().Type, string(b))
		kinds[e.Head().Type] = true
	}
	for _, k := range []string{session.TypeToolProgress, session.TypeToolResult, session.TypeAssistantMessage} {
		if !kinds[k] {
			t.Errorf("no %s event: the hostile server's path was not taken", k)
		}
	}
	check("clipboard", m.clipboardText())
	if !strings.Contains(m.clipboardText(), "the answer") {
		t.Errorf("clipboard: %q", m.clipboardText())
	}
	sess.Close()
	log, err := os.ReadFile(filepath.Join(dir, "20261201-000000-host11.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	check("session log", string(log))
	// What the model was sent: no credential (escapes reach the model as
	// text; it is not a terminal).
	truncated := false
	for _, r := range ol.Requests() {
		for _, msg := range r.Messages {
			if strings.Contains(msg.Content, hostileSecret) {
				t.Errorf("the model was sent the credential: %.200q", msg.Content)
			}
			truncated = truncated || strings.Contains(msg.Content, "[result truncated")
		}
	}
	if !truncated {
		t.Error("the padded result was not cut: the test did not take that path")
	}
}

// TestClipboardDropsControls: ctrl+y copies the last answer with every
// control character but newline and tab removed, so a pasted answer
// cannot end a bracketed paste and run what follows.
func TestClipboardDropsControls(t *testing.T) {
	h := screenModel(t, 80, 24, themes.Default())
	answer := "run this:\n\techo hi\x1b[201~rm -rf ~\n\u009b\u202eok\r\n"
	h.feed(&session.UserMessage{Turn: 1, Text: "q"},
		&session.AssistantMessage{Turn: 1, Content: answer},
		&session.TurnDone{Turn: 1, Reason: session.ReasonStop})
	got := h.m.clipboardText()
	for _, c := range got {
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || (0x80 <= c && c < 0xa0) || c == 0x202e {
			t.Fatalf("clipboard holds %U: %q", c, got)
		}
	}
	if !strings.Contains(got, "\techo hi") || !strings.Contains(got, "rm -rf ~") {
		t.Fatalf("clipboard lost the text: %q", got)
	}
}

// A reply whose code block names a lexer that never ended on some text
// (chroma's Jungle, on a line it cannot read, pushed and popped states
// at one place forever) is drawn in colour, whole, by the chat's
// pipeline: a model, or a page it quotes, could name it and freeze the
// chat.
func TestReplyWithALoopingLexerIsDrawn(t *testing.T) {
	reply := []byte("Here:\n\n```jungle\n#!/usr/bin/env python\nprint(1)\n```\n\nAll done.\n")
	for _, prof := range []termenv.Profile{termenv.ANSI256, termenv.TrueColor} {
		p, err := newMDPipeline("dark", prof)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() {
			doc, _ := p.renderDoc(reply, 76)
			chunked, _ := p.render(reply, 76, false, false)
			done <- doc + chunked
		}()
		select {
		case out := <-done:
			if text := ansiStrip(out); strings.Count(text, "print(1)") != 2 || strings.Count(text, "All done.") != 2 {
				t.Errorf("profile %v: the reply was not drawn whole:\n%s", prof, text)
			}
		case <-time.After(mcptestutil.HangBound(0)): // a hang's bound, not a measure
			t.Fatalf("profile %v: drawing the reply never ended", prof)
		}
	}
}
