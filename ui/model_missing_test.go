package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestMissingModelOpensThePicker: a model Ollama does not have (--model
// with a typo) is said to be missing, then the picker opens over the
// installed models; choosing one sets it.
func TestMissingModelOpensThePicker(t *testing.T) {
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}},
		ollamatest.Model{Name: "llama3.2:3b"})
	defer srv.Close()
	sess := session.New(session.Options{Client: srv.Client(), Host: "127.0.0.1:11434", Model: "nosuch"})
	defer sess.Close()
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	_, cmd := m.Update(m.probe()())
	if v := m.View(); !strings.Contains(v, `model "nosuch" not found`) {
		t.Fatalf("no error for the missing model:\n%s", v)
	}
	if cmd == nil {
		t.Fatalf("the picker was not asked for:\n%s", m.View())
	}
	m.Update(cmd())
	if m.picker == nil {
		t.Fatalf("no picker opened:\n%s", m.View())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("qwen")})
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter in the picker did nothing")
	}
	m.Update(cmd())
	if got := sess.Model(); got != "qwen3:8b" {
		t.Fatalf("model = %q, want qwen3:8b", got)
	}
}

// TestUnreachableOllamaOpensNoPicker: only a missing model opens the
// picker; Ollama not running does not (there is nothing to pick from).
func TestUnreachableOllamaOpensNoPicker(t *testing.T) {
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	client := srv.Client()
	srv.Close()
	sess := session.New(session.Options{Client: client, Host: "127.0.0.1:1", Model: "qwen3:8b"})
	defer sess.Close()
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	if _, cmd := m.Update(m.probe()()); cmd != nil {
		t.Errorf("a command after an unreachable Ollama: %T", cmd())
	}
}

// TestModelCommandMissingModelOpensThePicker: /model with a name Ollama
// does not have says so and opens the picker, as a missing --model does.
func TestModelCommandMissingModelOpensThePicker(t *testing.T) {
	h := newHarness(t, 100, 24)
	h.typeText("/model qwen3:8bb")
	cmd := h.key(tea.KeyEnter)
	for i := 0; cmd != nil && h.m.picker == nil && i < 5; i++ {
		_, cmd = h.m.Update(cmd())
	}
	if v := h.m.View(); !strings.Contains(v, `model "qwen3:8bb" not found`) {
		t.Fatalf("no error for the missing model:\n%s", v)
	}
	if h.m.picker == nil {
		t.Fatalf("no picker opened:\n%s", h.m.View())
	}
	if got := h.sess.Model(); got != "qwen3:8b" {
		t.Errorf("model = %q, want the one in use kept", got)
	}
}
