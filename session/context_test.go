package session_test

import (
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// ctxNotices are the context warnings among evs.
func ctxNotices(evs []session.Event) []string {
	var out []string
	for _, n := range of[*session.Notice](evs) {
		if strings.HasPrefix(n.Text, "context ") {
			out = append(out, n.Text)
		}
	}
	return out
}

// TestContextFromServer: without num_ctx the context in effect is the
// loaded model's, learnt from /api/ps after the first reply; the meter's
// figures are Ollama's counts of the last reply.
func TestContextFromServer(t *testing.T) {
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("Hello there."))
	s := newSession(t, srv, session.Options{Model: "qwen3:8b"})
	if c := s.Context(); c.Used() != 0 || c.NumCtx != 0 {
		t.Fatalf("before the first reply: %+v", c)
	}
	r := newReader(t, s)
	send(t, s, "hi")
	evs := r.turn()
	d := done(t, evs)
	c := s.Context()
	if c.NumCtx != ollamatest.DefaultNumCtx || c.Source != session.CtxFromServer {
		t.Errorf("num_ctx %d from %q, want %d from the server", c.NumCtx, c.Source, ollamatest.DefaultNumCtx)
	}
	if c.Prompt != d.Metrics.PromptTokens || c.Eval != d.Metrics.EvalTokens || c.Used() == 0 || c.Truncated {
		t.Errorf("context %+v, metrics %+v", c, d.Metrics)
	}
	if c.Est.History == 0 || c.Est.LastReply == 0 {
		t.Errorf("estimate %+v", c.Est)
	}
	if n := ctxNotices(evs); len(n) != 0 {
		t.Errorf("warned on a short chat: %q", n)
	}
}

// TestSilentTruncationSaid: with ollama.truncate set (Ollama may cut), a
// prompt longer than Ollama's default context is cut without a word by
// the server, each version its own way; the session says so, naming what
// was lost and the fix, even before it knew the context (first turn).
func TestSilentTruncationSaid(t *testing.T) {
	for _, v := range ollamatest.Versions {
		t.Run(v, func(t *testing.T) {
			srv := newServerAs(t, v)
			srv.SetDefault(ollamatest.TextTurn("ok"))
			s := newSession(t, srv, session.Options{Model: "qwen3:8b", Truncate: true})
			r := newReader(t, s)
			send(t, s, strings.Repeat("word ", 6000))
			evs := r.turn()
			n := ctxNotices(evs)
			if len(n) != 1 {
				t.Fatalf("want one context warning, got %q in %s", n, kinds(evs))
			}
			saw := map[string]string{ollamatest.V0174: "saw 4096 tokens", ollamatest.V03215: "saw 2051 tokens"}[v]
			containsAll(t, n[0], "context full", saw, "the oldest messages", "/compact", "/context NUM",
				"ollama.options.num_ctx", "up to 40960")
			if c := s.Context(); !c.Truncated || c.NumCtx != 4096 {
				t.Errorf("context %+v", c)
			}
		})
	}
}

// TestHalfContextCutSaid: v0.32.15 cuts a prompt that does not fit to
// about half the context (131 of 256), under the context and under the
// estimate of what was sent; the session still sees the cut and says so,
// as it does on v0.17.4 (which keeps 256). The prompt is one the estimate
// (bytes/4) puts under the context, as for the tiny models' byte tokens.
func TestHalfContextCutSaid(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		s := tg.session(t, session.Options{Model: tg.model, Truncate: true, Options: map[string]any{"num_ctx": 256}})
		r := newReader(t, s)
		send(t, s, strings.Repeat("a!", 300)) // 600 tokens, 154 estimated
		evs := r.turn()
		saw := map[string]string{ollamatest.V0174: "saw 256 tokens", ollamatest.V03215: "saw 131 tokens"}[tg.version]
		n := ctxNotices(evs)
		if len(n) != 1 {
			t.Fatalf("want one context warning, got %q in %s", n, kinds(evs))
		}
		containsAll(t, n[0], "context full", saw, "/compact", "/context NUM")
		if c := s.Context(); !c.Truncated {
			t.Errorf("context %+v not marked cut", c)
		}
	})
}

// TestContextWarningTurn: Ollama may cut (ollama.truncate); a chat with
// num_ctx 256 (config) crosses the
// limit; the warning comes at the turn that crosses it, before sending
// (the estimate), and once a turn. /context 8192 makes it go away on the
// next turn, and the request carries num_ctx 8192.
func TestContextWarningTurn(t *testing.T) {
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	s := newSession(t, srv, session.Options{Model: "qwen3:8b", Truncate: true, NoAutoCompact: true, Options: map[string]any{"num_ctx": 256}})
	r := newReader(t, s)
	msg := strings.Repeat("word ", 40) // 44 tokens for the fake, 54 estimated
	warnedAt := 0
	for turn := 1; turn <= 8 && warnedAt == 0; turn++ {
		send(t, s, msg)
		evs := r.turn()
		if n := ctxNotices(evs); len(n) > 0 {
			if len(n) != 1 {
				t.Fatalf("turn %d: %d warnings: %q", turn, len(n), n)
			}
			warnedAt = turn
			containsAll(t, n[0], "256", "ollama.options.num_ctx", "/context NUM", "the oldest messages")
		}
	}
	// The fake's prompt after k turns is 49k-5 tokens: turn 6 is the
	// first over 256.
	if warnedAt != 6 {
		t.Fatalf("warned at turn %d, want 6", warnedAt)
	}
	if c := s.Context(); c.NumCtx != 256 || c.Source != session.CtxFromConfig {
		t.Errorf("context %+v", c)
	}

	ch, err := s.SetNumCtx(bounded(t), 8192)
	if err != nil || ch.NumCtx != 8192 || ch.Capped || ch.Trained != 40960 {
		t.Fatalf("SetNumCtx(8192) = %+v, %v", ch, err)
	}
	send(t, s, msg)
	evs := r.turn()
	if n := ctxNotices(evs); len(n) != 0 {
		t.Errorf("still warned after /context 8192: %q", n)
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Options["num_ctx"]; got != float64(8192) {
		t.Errorf("num_ctx sent %v, want 8192", got)
	}
	if c := s.Context(); c.Truncated || c.NumCtx != 8192 || c.Source != session.CtxFromSession {
		t.Errorf("context after /context 8192: %+v", c)
	}
}

// TestSetNumCtxCapped: /context NUM is capped at the model's trained
// maximum (/api/show); 0 drops the setting.
func TestSetNumCtxCapped(t *testing.T) {
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "qwen3:8b", Options: map[string]any{"num_ctx": 2048.0}})
	ch, err := s.SetNumCtx(bounded(t), 1_000_000)
	if err != nil || !ch.Capped || ch.NumCtx != 40960 || ch.Asked != 1_000_000 {
		t.Fatalf("SetNumCtx = %+v, %v", ch, err)
	}
	if c := s.Context(); c.NumCtx != 40960 || c.Trained != 40960 {
		t.Errorf("context %+v", c)
	}
	if _, err := s.SetNumCtx(bounded(t), 0); err != nil {
		t.Fatal(err)
	}
	if c := s.Context(); c.NumCtx != 2048 || c.Source != session.CtxFromConfig {
		t.Errorf("after dropping the setting: %+v", c)
	}
}
