package ollamatest

import (
	"context"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// TestSilentTruncation: a prompt longer than the context is cut without a
// word, as a real server does: 200, done_reason "stop", and
// prompt_eval_count is what was kept. Without num_ctx the context is
// DefaultNumCtx; /api/ps reports the loaded runner's context.
func TestSilentTruncation(t *testing.T) {
	s := newServer(t)
	long := strings.Repeat("word ", 6000) // > 4096 tokens
	last := func(rs []api.ChatResponse) api.ChatResponse { return rs[len(rs)-1] }
	ps := func() int {
		res, err := s.Client().ListRunning(context.Background())
		if err != nil || len(res.Models) != 1 {
			t.Fatalf("/api/ps: %v %+v", err, res)
		}
		return res.Models[0].ContextLength
	}

	rs, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user(long), Think: think(false),
		Options: map[string]any{"num_ctx": 256}})
	if err != nil {
		t.Fatalf("an over-long prompt is not an error: %v", err)
	}
	if d := last(rs); !d.Done || d.DoneReason != "stop" || d.PromptEvalCount != 256 {
		t.Fatalf("with num_ctx 256: done %v, reason %q, prompt_eval_count %d", d.Done, d.DoneReason, d.PromptEvalCount)
	}
	if n := ps(); n != 256 {
		t.Errorf("/api/ps context_length %d after num_ctx 256", n)
	}

	rs, err = chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user(long), Think: think(false)})
	if err != nil {
		t.Fatal(err)
	}
	if d := last(rs); d.PromptEvalCount != DefaultNumCtx {
		t.Fatalf("without num_ctx: prompt_eval_count %d, want %d", d.PromptEvalCount, DefaultNumCtx)
	}
	if n := ps(); n != DefaultNumCtx {
		t.Errorf("/api/ps context_length %d, want %d", n, DefaultNumCtx)
	}

	rs, err = chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user("short"), Think: think(false)})
	if err != nil {
		t.Fatal(err)
	}
	if d := last(rs); d.PromptEvalCount <= 0 || d.PromptEvalCount >= 100 {
		t.Fatalf("a short prompt: prompt_eval_count %d", d.PromptEvalCount)
	}
}
