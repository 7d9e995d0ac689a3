package ui

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestThoughtForOneWord: a one-word thought is "1 word", not "1 words".
func TestThoughtForOneWord(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.srv.Script(ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("hmm"), ollamatest.Tokens("Yes.")...)})
	h.send("a")
	if v := h.m.View(); !strings.Contains(v, "┊ thought for 1 word · ctrl+t shows") {
		t.Fatalf("the collapsed thinking line:\n%s", v)
	}
}

// TestWrappedErrorHasNoBlankLine: Ollama unreachable, at 120 columns the
// error wraps before "--host" with no blank line inside it.
func TestWrappedErrorHasNoBlankLine(t *testing.T) {
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	client := srv.Client()
	srv.Close()
	sess := session.New(session.Options{Client: client, Host: "http://127.0.0.1:11434", Model: "qwen3:8b"})
	defer sess.Close()
	m := New(Options{Backend: sess, Events: sess.Subscribe(), Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	m.Update(m.probe()())
	var rows []string
	for _, l := range strings.Split(m.View(), "\n") {
		rows = append(rows, strings.TrimRight(ansi.Strip(l), " "))
	}
	start := slices.IndexFunc(rows, func(r string) bool { return strings.HasPrefix(r, "✗ cannot reach Ollama") })
	if start < 0 || start+1 >= len(rows) {
		t.Fatalf("no error:\n%s", m.View())
	}
	if rows[start+1] != "  --host at it" {
		t.Errorf("the error wraps as\n%q\n%q\nwant its last words on the next row", rows[start], rows[start+1])
	}
}
