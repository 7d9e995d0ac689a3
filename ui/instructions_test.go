package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestContextListsInstructions: /context names the system prompt and the
// project's AGENTS.md with their token cost, each on one line even when the
// file's path holds an escape sequence.
func TestContextListsInstructions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj\x1b[2Jx")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "AGENTS.md")
	if err := os.WriteFile(p, []byte(strings.Repeat("rule ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	agents, err := session.ReadInstruction("AGENTS.md", p)
	if err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(srv.Close)
	sess := session.New(session.Options{Client: srv.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		Instructions: []session.Instruction{{Name: "system prompt", Text: "Be brief."}, agents}})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
	h := &harness{t: t, srv: srv, sess: sess, sub: sub, m: m}

	h.runSlash("/context")
	text := allText(h.m)
	for _, want := range []string{"instructions: system prompt, 7 tokens", "instructions: AGENTS.md (", "AGENTS.md), 129 tokens"} {
		if !strings.Contains(text, want) {
			t.Errorf("/context lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b[2J") {
		t.Errorf("/context shows the path's escape sequence raw")
	}
}
