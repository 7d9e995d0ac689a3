package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
)

// /models shows a model whose /api/show failed (here: its blob is missing)
// with its capabilities unknown, not as "no", and says what failed.
func TestModelsShowsUnknownCapabilities(t *testing.T) {
	h := newHarness(t, 200, 30,
		ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}, Size: 5_200_000_000, ParameterSize: "8.2B"},
		ollamatest.Model{Name: "broken:7b", Capabilities: []string{"completion", "tools"}, Size: 4_100_000_000, ParameterSize: "7B", MissingBlob: true})
	h.typeText("/models")
	cmd := h.key(tea.KeyEnter)
	h.m.Update(cmd())
	v := allText(h.m)
	var row string
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, "broken:7b") && strings.Contains(l, "4.1 GB") {
			row = l
		}
	}
	if row == "" {
		t.Fatalf("/models has no row for broken:7b:\n%s", v)
	}
	if strings.Contains(row, " no ") || strings.Count(row, "unknown") != 2 {
		t.Errorf("broken:7b row %q: want tools and thinking unknown", row)
	}
	for _, want := range []string{"broken:7b: capabilities unknown", "/api/show failed", "not found", "ollama pull broken:7b"} {
		if !strings.Contains(v, want) {
			t.Errorf("/models output lacks %q:\n%s", want, v)
		}
	}
	if qwen := strings.Split(v[strings.Index(v, "qwen3:8b"):], "\n")[0]; strings.Contains(qwen, "unknown") {
		t.Errorf("qwen row %q: its capabilities are known", qwen)
	}
}

// The picker's note says so too, while a model without tools or thinking
// (known) has no note.
func TestCapsNoteUnknown(t *testing.T) {
	got := capsNote(session.ModelInfo{Name: "broken:7b", ShowErr: "/api/show failed: Ollama error (500): boom"})
	if !strings.Contains(got, "unknown") || !strings.Contains(got, "/api/show failed") {
		t.Errorf("capsNote = %q, want the capabilities unknown and why", got)
	}
	if got := capsNote(session.ModelInfo{Name: "tiny", Capabilities: []string{"completion"}}); got != "" {
		t.Errorf("capsNote of a plain model = %q", got)
	}
}
