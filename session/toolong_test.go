package session_test

import (
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestOverLongPromptRefusedKeepsNothing: latch asks Ollama to refuse a
// prompt longer than the context (truncate:false) rather than cut it;
// on both versions, each refusing in its own words, the turn ends with
// the same advice (/compact, /context NUM up to the model's maximum,
// /clear), the refused message is not in the conversation (the turn says
// it is unsent), and once there is room the same message is answered and
// kept once.
func TestOverLongPromptRefusedKeepsNothing(t *testing.T) {
	for _, v := range ollamatest.Versions {
		t.Run(v, func(t *testing.T) {
			srv := newServerAs(t, v)
			srv.SetDefault(ollamatest.TextTurn("ok"))
			s := newSession(t, srv, session.Options{Model: "qwen3:8b", Options: map[string]any{"num_ctx": 256}})
			r := newReader(t, s)
			send(t, s, "hi")
			r.turn()
			long := strings.Repeat("word ", 400)
			send(t, s, long)
			evs := r.turn()
			d := done(t, evs)
			if d.Reason != session.ReasonError || !d.Unsent {
				t.Fatalf("turn_done %+v, want an error with the message unsent", d)
			}
			msg := one[*session.Error](t, evs).Message
			containsAll(t, msg, "Ollama refused this message", "the context of 256", "not in the conversation",
				"/compact", "/context NUM", "up to 40960", "/clear")
			if n := ctxNotices(evs); len(n) != 0 {
				t.Errorf("a refusal also warned of a cut: %q", n)
			}
			reqs := srv.Requests()
			if last := reqs[len(reqs)-1]; last.Truncate == nil || *last.Truncate {
				t.Errorf("the request did not ask Ollama to refuse (truncate %v)", last.Truncate)
			}
			if h := s.History(); len(h) != 2 || h[0].Content != "hi" {
				t.Fatalf("the refused message was kept: %+v", h)
			}

			if _, err := s.SetNumCtx(bounded(t), 8192); err != nil {
				t.Fatal(err)
			}
			send(t, s, long)
			if d := done(t, r.turn()); d.Reason != session.ReasonStop || d.Unsent {
				t.Fatalf("with room: %+v", d)
			}
			h := s.History()
			if len(h) != 4 || h[2].Content != long {
				t.Fatalf("history after the resend: %d messages", len(h))
			}
		})
	}
}
