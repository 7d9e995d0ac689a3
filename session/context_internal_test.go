package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

func TestEstimateTokens(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2}, {strings.Repeat("x", 4000), 1000}} {
		if got := estimateTokens(tt.in); got != tt.want {
			t.Errorf("estimateTokens(%d bytes) = %d, want %d", len(tt.in), got, tt.want)
		}
	}
	// A message: its content and tool calls, plus the template's overhead;
	// its thinking is left out (templates drop earlier thinking).
	m := api.Message{Role: "assistant", Content: strings.Repeat("x", 40), Thinking: strings.Repeat("y", 400)}
	if got := estimateMessage(m); got != messageOverhead+10 {
		t.Errorf("estimateMessage = %d, want %d", got, messageOverhead+10)
	}
}

func TestEstimateParts(t *testing.T) {
	ms := []api.Message{
		{Role: "system", Content: strings.Repeat("s", 80)},
		{Role: "user", Content: strings.Repeat("u", 40)},
		{Role: "assistant", Content: strings.Repeat("a", 20)},
		{Role: "user", Content: strings.Repeat("u", 40)},
		{Role: "assistant", Content: strings.Repeat("a", 400)},
	}
	e := estimateParts(ms, 500)
	want := ContextEstimate{System: 4 + 20, Tools: 500, History: 3*4 + 10 + 5 + 10, LastReply: 4 + 100}
	if e != want {
		t.Fatalf("estimateParts = %+v, want %+v", e, want)
	}
	if e.Total() != 24+500+37+104 {
		t.Errorf("Total = %d", e.Total())
	}
	// A conversation that ends with the user's message has no last reply.
	if e := estimateParts(ms[:4], 0); e.LastReply != 0 {
		t.Errorf("no last reply expected: %+v", e)
	}
	var tools api.Tools
	if err := json.Unmarshal([]byte(`[{"type":"function","function":{"name":"fs__read","description":"`+
		strings.Repeat("d", 400)+`","parameters":{"type":"object"}}}]`), &tools); err != nil {
		t.Fatal(err)
	}
	if n := estimateTools(tools); n < 100 || n > 150 {
		t.Errorf("estimateTools = %d for ~450 bytes of JSON", n)
	}
}

// TestTruncationRule: the model saw less than was sent when
// prompt_eval_count drops while the conversation only grew, sits at the
// context's size, or is under half of an estimate that exceeds the context.
func TestTruncationRule(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    promptCheck
		want bool
	}{
		{"no count", promptCheck{numCtx: 256, est: 1000}, false},
		{"fits", promptCheck{prompt: 120, numCtx: 256, est: 130, prevPrompt: 80, grew: true}, false},
		{"first reply fits", promptCheck{prompt: 120, numCtx: 0, est: 130}, false},
		{"at the limit (fake: exactly)", promptCheck{prompt: 256, numCtx: 256, est: 240}, true},
		{"close to the limit (real server)", promptCheck{prompt: 4000, numCtx: 4096, est: 3000}, true},
		{"under the limit", promptCheck{prompt: 3900, numCtx: 4096, est: 3800}, false},
		{"dropped while it grew", promptCheck{prompt: 60, numCtx: 0, est: 100, prevPrompt: 90, grew: true}, true},
		{"dropped after a clear", promptCheck{prompt: 20, numCtx: 4096, est: 25, prevPrompt: 900, grew: false}, false},
		{"tiny num_ctx, well under it", promptCheck{prompt: 67, numCtx: 128, est: 2900}, true},
		{"estimate over, count plausible", promptCheck{prompt: 200, numCtx: 256, est: 300}, false},
		{"estimate high, context big enough", promptCheck{prompt: 100, numCtx: 8192, est: 3000}, false},
	} {
		if got := tt.c.truncated(); got != tt.want {
			t.Errorf("%s: truncated(%+v) = %v, want %v", tt.name, tt.c, got, tt.want)
		}
	}
}

func TestLostPart(t *testing.T) {
	if got := lostPart(ContextEstimate{Tools: 300, History: 50}, 256); !strings.Contains(got, "tool definitions") {
		t.Errorf("tools over the context: %q", got)
	}
	if got := lostPart(ContextEstimate{Tools: 100, History: 500}, 256); got != "the oldest messages" {
		t.Errorf("history over the context: %q", got)
	}
}

func TestIntOptionAndSameModel(t *testing.T) {
	for _, v := range []any{8192, int64(8192), float64(8192), json.Number("8192")} {
		if intOption(v) != 8192 {
			t.Errorf("intOption(%T) = %d", v, intOption(v))
		}
	}
	for _, v := range []any{nil, "8192", -1.0, true} {
		if n := intOption(v); n > 0 {
			t.Errorf("intOption(%#v) = %d, want none", v, n)
		}
	}
	if !sameModel("tiny", "tiny:latest") || !sameModel("Qwen3:8B", "qwen3:8b") || sameModel("qwen3", "qwen3:8b") {
		t.Error("sameModel")
	}
}
