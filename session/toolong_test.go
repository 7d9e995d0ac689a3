package session_test

import (
	"fmt"
	"strings"
	"testing"

	"latch/permissions"
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
	eachTarget(t, func(t *testing.T, tg target) {
		s := tg.session(t, session.Options{Model: tg.model, Options: map[string]any{"num_ctx": 256}})
		r := newReader(t, s)
		send(t, s, "hi")
		if d := done(t, r.turn()); d.Reason != session.ReasonStop {
			t.Fatalf("hi: %+v", d)
		}
		long := strings.Repeat("a!", 150) // about 300 tokens, for the fake and the real tiny model alike
		send(t, s, long)
		evs := r.turn()
		d := done(t, evs)
		if d.Reason != session.ReasonError || !d.Unsent {
			t.Fatalf("turn_done %+v, want an error with the message unsent (%s)", d, kinds(evs))
		}
		msg := one[*session.Error](t, evs).Message
		containsAll(t, msg, "Ollama refused this message", "the context of 256", "not in the conversation",
			"/compact", "/context NUM", fmt.Sprintf("up to %d", tg.trained), "/clear")
		if n := ctxNotices(evs); len(n) != 0 {
			t.Errorf("a refusal also warned of a cut: %q", n)
		}
		if tg.fake != nil {
			reqs := tg.fake.Requests()
			if last := reqs[len(reqs)-1]; last.Truncate == nil || *last.Truncate {
				t.Errorf("the request did not ask Ollama to refuse (truncate %v)", last.Truncate)
			}
		}
		if h := s.History(); len(h) != 2 || h[0].Content != "hi" {
			t.Fatalf("the refused message was kept: %+v", h)
		}

		if _, err := s.SetNumCtx(bounded(t), 1024); err != nil {
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

// TestRefusedMessageNotResumed: a message Ollama refused is in the log
// as what was typed, never as part of the conversation: a resumed session
// sends without it.
func TestRefusedMessageNotResumed(t *testing.T) {
	srv := newServerAs(t, ollamatest.V03215)
	dir := t.TempDir()
	o := session.Options{Model: "qwen3:8b", LogDir: dir, Options: map[string]any{"num_ctx": 256}}
	s := newSession(t, srv, o)
	r := newReader(t, s)
	send(t, s, "hi")
	r.turn()
	send(t, s, strings.Repeat("word ", 400))
	if d := done(t, r.turn()); !d.Unsent {
		t.Fatalf("%+v", d)
	}
	id := s.ID()
	s.Close()
	o.Client, o.Host, o.Raw = srv.Client(), srv.Host(), rawOf(srv)
	back, _, err := session.Resume(o, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Close)
	if h := back.History(); len(h) != 2 || h[0].Content != "hi" {
		t.Fatalf("resumed history %+v", h)
	}
}

// TestOverLongPromptAdviceForPrompt: with -p no command can be typed, so
// the refusal's advice names the config's num_ctx and a shorter prompt,
// never /compact.
func TestOverLongPromptAdviceForPrompt(t *testing.T) {
	srv := newServerAs(t, ollamatest.V03215)
	s := newSession(t, srv, session.Options{Model: "qwen3:8b", NonInteractive: true, Options: map[string]any{"num_ctx": 256}})
	r := newReader(t, s)
	send(t, s, strings.Repeat("a!", 150))
	evs := r.turn()
	msg := one[*session.Error](t, evs).Message
	containsAll(t, msg, "Ollama refused this message", "set a larger ollama.options.num_ctx in the config (up to 40960",
		"or send a shorter prompt", "Ollama counted")
	if strings.Contains(msg, "/compact") || strings.Contains(msg, "/context") {
		t.Errorf("-p advice names commands: %s", msg)
	}
}

// TestOverLongAfterToolsRefusedToGoOn: a tool's result makes the next
// request of the turn too long; Ollama refuses it, and the turn ends
// saying so, with the ways to make room (the tools offered and their
// cost among them). The user's message was taken with the first reply:
// it and the call's answer stay in the conversation, and nothing is
// given back to the input.
func TestOverLongAfterToolsRefusedToGoOn(t *testing.T) {
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto},
		Options: map[string]any{"num_ctx": 512}})
	long := strings.Repeat("a!", 200)
	h.ol.Script(callsTurn(toolCall("c1", "notes__write_note", "text", long)))
	send(t, h.sess, "note it")
	evs := h.r.turn()
	d := done(t, evs)
	if d.Reason != session.ReasonError || d.Unsent {
		t.Fatalf("turn_done %+v (%s), want an error, the message kept", d, kinds(evs))
	}
	containsAll(t, one[*session.Error](t, evs).Message, "Ollama refused to go on", "no longer fits the context of 512",
		"/compact", "fewer tools: the 4 offered take about", "/tools NAME off")
	hist := h.sess.History()
	if len(hist) != 3 || hist[0].Content != "note it" || hist[1].Role != "assistant" {
		t.Fatalf("history %+v", hist)
	}
	if w := h.notes.written(); len(w) != 1 {
		t.Errorf("writes %q", w)
	}
}
