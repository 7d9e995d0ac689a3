package ui

import (
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
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

// TestHostileOllamaRefusalAndCapabilities: an Ollama that plants escapes
// in its refusal of a long prompt and in capability names it lists in
// /api/tags: neither reaches the screen raw, a long name is cut, and the
// refused message still comes back to the input.
func TestHostileOllamaRefusalAndCapabilities(t *testing.T) {
	plant := mcptestutil.Plant("tok-3x4mple")
	odd := ollamatest.Model{Name: "odd:1b", Capabilities: []string{"completion", plant, strings.Repeat("z", 500),
		"a", "b", "c", "d", "e", "f"}}
	srv := ollamatest.NewAs(ollamatest.V03215, qwenModel, odd)
	t.Cleanup(srv.Close)
	srv.Script(ollamatest.Turn{Status: 400, Error: `{"error":{"message":"` + strings.ReplaceAll(plant, `\`, `\\`) +
		` exceeds the available context size","type":"exceed_context_size_error"}}`})
	h := newHarnessOn(t, 120, 40, srv, session.Options{Model: qwenModel.Name})
	h.send("hi")
	h.command("/models")
	screen := allText(h.m) + h.m.View()
	if bad := mcptestutil.FirstForbidden(screen); bad != "" {
		t.Errorf("%q reached the screen:\n%s", bad, screen)
	}
	for _, want := range []string{"Ollama refused this message", "zzzzzzzzzzzzzzzzzzzzzzz…", "d, +2"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, strings.Repeat("z", 25)) {
		t.Errorf("a long capability name was not cut")
	}
	if h.m.input.value() != "hi" {
		t.Errorf("input %q", h.m.input.value())
	}
}
