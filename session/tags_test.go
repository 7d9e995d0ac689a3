package session_test

import (
	"slices"
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestModelsFromTags: Ollama v0.32.15 lists each model's capabilities
// and trained context in /api/tags, so /models asks no /api/show; v0.17.4
// lists neither, and /api/show is asked once per model. Either way the
// tools, thinking and trained context are right, and a capability latch
// does not know ("audio") is kept.
func TestModelsFromTags(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		s := tg.session(t, session.Options{Model: tg.model})
		ms, err := s.Models(bounded(t))
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]session.ModelInfo{}
		for _, m := range ms {
			byName[strings.TrimSuffix(m.Name, ":latest")] = m
		}
		if m := byName[tg.model]; !m.CapsKnown() || !m.Tools() || m.ContextLength != tg.trained {
			t.Errorf("%s: %+v", tg.model, m)
		}
		if m := byName[tg.thinker]; !m.Thinking() || m.Tools() {
			t.Errorf("%s: %+v", tg.thinker, m)
		}
		if tg.fake == nil {
			return
		}
		if h := byName["hear:2b"]; h.Tools() || !slices.Equal(h.Capabilities, hear.Capabilities) || h.ContextLength != 16384 {
			t.Errorf("%+v", h)
		}
		want := map[string]int{ollamatest.V0174: len(ms), ollamatest.V03215: 0}[tg.version]
		if n := tg.fake.Shows(); n != want {
			t.Errorf("/api/show asked %d times for %d models, want %d", n, len(ms), want)
		}
	})
}
