package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"latch/session"
	"latch/session/ollamatest"
)

var qwenModel = ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"},
	Size: 5_200_000_000, ParameterSize: "8.2B"}

// cutHarness is newHarness with a session that lets Ollama cut a prompt
// longer than the context (ollama.truncate: true), as it does by default.
func cutHarness(t *testing.T, w, h int) *harness {
	t.Helper()
	srv := ollamatest.New(qwenModel)
	t.Cleanup(srv.Close)
	think := true
	return newHarnessOn(t, w, h, srv, session.Options{Model: qwenModel.Name, Think: &think, Truncate: true, NoAutoCompact: true})
}

// TestOverLongMessageBackInTheInput: on both Ollama versions, a message
// that does not fit the context (/context 256) is refused, not cut: the
// chat says what to do (/compact, /context NUM, /clear), the message is
// back in the input and not in the conversation; the input cleared for
// /context 8192, the message comes back after it, and Enter sends it and
// it is answered.
func TestOverLongMessageBackInTheInput(t *testing.T) {
	for _, v := range ollamatest.Versions {
		t.Run(v, func(t *testing.T) {
			srv := ollamatest.NewAs(v, qwenModel)
			t.Cleanup(srv.Close)
			srv.SetDefault(ollamatest.TextTurn("ok"))
			h := newHarnessOn(t, 100, 30, srv, session.Options{Model: qwenModel.Name})
			h.runSlash("/context 256")
			h.send("hi")
			long := strings.Repeat("word ", 300)
			h.send(long)
			text := allText(h.m)
			for _, want := range []string{"Ollama refused this message", "/compact", "/context NUM", "/clear",
				"your message is back in the input"} {
				if !strings.Contains(text, want) {
					t.Errorf("the chat lacks %q:\n%s", want, text)
				}
			}
			if got := h.m.input.value(); got != long {
				t.Fatalf("input %q, want the refused message back", got)
			}
			if hist := h.sess.History(); len(hist) != 2 {
				t.Fatalf("the refused message is in the conversation: %+v", hist)
			}
			h.key(tea.KeyCtrlC) // clears the input for a command
			if got := h.m.input.value(); got != "" {
				t.Fatalf("ctrl+c left %q in the input", got)
			}
			h.runSlash("/context 8192")
			if got := h.m.input.value(); got != long {
				t.Fatalf("after the command the input is %q, want the message back", got)
			}
			h.key(tea.KeyEnter)
			h.untilTurnDone()
			if got := h.m.input.value(); got != "" {
				t.Errorf("input after the resend %q", got)
			}
			if hist := h.sess.History(); len(hist) != 4 || hist[2].Content != long {
				t.Fatalf("after the resend: %d messages", len(hist))
			}
		})
	}
}

// TestGoldenRefusedMessage: a message refused as too long, as drawn.
func TestGoldenRefusedMessage(t *testing.T) {
	srv := ollamatest.NewAs(ollamatest.V03215, qwenModel)
	t.Cleanup(srv.Close)
	h := newHarnessOn(t, 80, 30, srv, session.Options{Model: qwenModel.Name})
	h.runSlash("/context 256")
	h.send(strings.Repeat("word ", 300))
	golden.RequireEqual(t, []byte(entriesWith(h.m, "refused")+entriesWith(h.m, "back in the input")))
}

// TestRefusedMessageQueuedBehindWait: a message queued while the refused
// one was sent is not sent in its place: it waits, said so, and goes
// after the refused one, once that is sent again and answered.
func TestRefusedMessageQueuedBehindWait(t *testing.T) {
	srv := ollamatest.NewAs(ollamatest.V03215, qwenModel)
	t.Cleanup(srv.Close)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	h := newHarnessOn(t, 100, 30, srv, session.Options{Model: qwenModel.Name})
	h.send("hi")
	srv.Script(ollamatest.Turn{Status: 400, Error: ollamatest.ErrPromptTooLong})
	h.typeText("first")
	h.key(tea.KeyEnter)
	// Typed and sent while the first runs (the refusal is too quick to
	// type it in time here): queued.
	h.m.queued = append(h.m.queued, "second")
	h.untilTurnDone()
	if !strings.Contains(allText(h.m), "the 1 queued behind") || h.m.input.value() != "first" {
		t.Fatalf("input %q:\n%s", h.m.input.value(), allText(h.m))
	}
	h.key(tea.KeyEnter) // the first, again
	h.untilTurnDone()
	h.untilTurnDone() // then the queued one
	hist := h.sess.History()
	if len(hist) != 6 || hist[2].Content != "first" || hist[4].Content != "second" {
		t.Fatalf("history %+v", hist)
	}
}
