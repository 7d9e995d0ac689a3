package ui

import (
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestModelsShowNewCapabilities: /models on both Ollama versions lists a
// capability latch has no column for ("audio", "vision") in its last
// column, as Ollama names it; tools and thinking stay right.
func TestModelsShowNewCapabilities(t *testing.T) {
	hear := ollamatest.Model{Name: "hear:2b", Capabilities: []string{"completion", "vision", "audio"}}
	for _, v := range ollamatest.Versions {
		t.Run(v, func(t *testing.T) {
			srv := ollamatest.NewAs(v, qwenModel, hear)
			t.Cleanup(srv.Close)
			h := newHarnessOn(t, 100, 30, srv, session.Options{Model: qwenModel.Name})
			h.command("/models")
			text := allText(h.m)
			for _, want := range []string{"THINKING  ALSO", "hear:2b", "no       no        vision, audio", "yes      yes"} {
				if !strings.Contains(text, want) {
					t.Errorf("/models lacks %q:\n%s", want, text)
				}
			}
		})
	}
}
