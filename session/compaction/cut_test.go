package compaction

import (
	"testing"

	"github.com/ollama/ollama/api"
)

// TestCompactCut: the last two turns stay whole; a call still waiting
// keeps its turn and all after it; a call whose answer was lost does not.
func TestCompactCut(t *testing.T) {
	call := func(id string) api.Message {
		return api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{ID: id, Function: api.ToolCallFunction{Name: "fs__read"}}}}
	}
	u := api.Message{Role: "user", Content: "q"}
	a := api.Message{Role: "assistant", Content: "a"}
	ms := []api.Message{u, a, u, call("c1"), u, a, u, a, u, a} // turns at 0, 2, 4, 6, 8
	for _, tt := range []struct {
		name    string
		ms      []api.Message
		waiting map[string]bool
		want    int
	}{
		{"two turns", ms[:4], nil, 0},
		{"the last two kept", ms, nil, 6},
		{"a waiting call keeps its turn", ms, map[string]bool{"c1": true}, 2},
		{"an answered call does not", append(append(ms[:4:4], api.Message{Role: "tool", ToolCallID: "c1"}), ms[4:]...),
			map[string]bool{"c1": true}, 7},
	} {
		if got := Cut(tt.ms, tt.waiting); got != tt.want {
			t.Errorf("%s: cut %d, want %d", tt.name, got, tt.want)
		}
	}
}
