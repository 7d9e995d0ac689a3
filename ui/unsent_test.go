package ui

import (
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// /think high on a model that takes no level: the chat shows Ollama's
// refusal and how to ask plainly, and the message comes back to the
// input, but not the advice for a prompt too long for the context
// (/compact, /context NUM), which has nothing to do with it.
func TestRefusedThinkLevelShowsOnlyTheRefusal(t *testing.T) {
	tinyThink := ollamatest.Model{Name: "tiny-think", Capabilities: []string{"completion", "thinking"}}
	srv := ollamatest.New(tinyThink)
	t.Cleanup(srv.Close)
	h := newHarnessOn(t, 100, 30, srv, session.Options{Model: tinyThink.Name})
	h.runSlash("/think high")
	h.send("hi")
	text := allText(h.m)
	if !strings.Contains(text, `think value "high" is not supported`) || !strings.Contains(text, "/think on") {
		t.Fatalf("no refusal:\n%s", text)
	}
	for _, not := range []string{"/compact", "/context NUM", "make room"} {
		if strings.Contains(text, not) {
			t.Errorf("the refusal of a think level is followed by the advice for a long prompt (%q):\n%s", not, text)
		}
	}
	if h.m.input.value() != "hi" {
		t.Errorf("input %q, want the refused message back", h.m.input.value())
	}
}

// Ollama stopped before a message is sent: the chat says it cannot reach
// Ollama, and the message stays in the input (not in the conversation),
// as a refused one does, instead of being cleared.
func TestUnreachableOllamaKeepsTheMessageInTheInput(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.srv.Close()
	h.send("remember my cat Ada")
	text := allText(h.m)
	if !strings.Contains(text, "cannot reach Ollama") {
		t.Fatalf("no error:\n%s", text)
	}
	if got := h.m.input.value(); got != "remember my cat Ada" {
		t.Errorf("input %q, want the message kept there", got)
	}
	if hist := h.sess.History(); len(hist) != 0 {
		t.Errorf("the unsent message joined the conversation: %+v", hist)
	}
	if strings.Contains(text, "/compact") {
		t.Errorf("the advice for a long prompt follows an unreachable Ollama:\n%s", text)
	}
}
