package session_test

import (
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestModelsFromTags: Ollama v0.32.15 lists each model's capabilities
// and trained context in /api/tags, so /models asks no /api/show; v0.17.4
// lists neither, and /api/show is asked once per model. A capability
// latch does not know ("audio") is kept either way.
func TestModelsFromTags(t *testing.T) {
	hear := ollamatest.Model{Name: "hear:2b", Capabilities: []string{"completion", "vision", "audio"}, ContextLength: 16384}
	for _, v := range ollamatest.Versions {
		t.Run(v, func(t *testing.T) {
			srv := newServerAs(t, v, qwen, hear)
			s := newSession(t, srv, session.Options{Model: "qwen3:8b"})
			ms, err := s.Models(bounded(t))
			if err != nil || len(ms) != 2 {
				t.Fatalf("%v %+v", err, ms)
			}
			if h := ms[0]; h.Name != "hear:2b" || !h.CapsKnown() || h.Tools() || strings.Join(h.Capabilities, ",") != "completion,vision,audio" ||
				h.ContextLength != 16384 {
				t.Errorf("%+v", h)
			}
			if q := ms[1]; !q.Tools() || !q.Thinking() || q.ContextLength != 40960 {
				t.Errorf("%+v", q)
			}
			want := map[string]int{ollamatest.V0174: 2, ollamatest.V03215: 0}[v]
			if n := srv.Shows(); n != want {
				t.Errorf("/api/show asked %d times, want %d", n, want)
			}
		})
	}
}
