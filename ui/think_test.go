package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
)

// TestThinkLevelOnBothVersions: /think max asks a model that can think
// for the level. Ollama v0.32.15 takes it; v0.17.4 refuses it (400), and
// the chat says how to ask plainly while the message comes back to the
// input; /think on then gets it answered. A bad setting is refused at
// once and nothing changes.
func TestThinkLevelOnBothVersions(t *testing.T) {
	tinyThink := ollamatest.Model{Name: "tiny-think", Capabilities: []string{"completion", "thinking"}}
	for _, v := range ollamatest.Versions {
		t.Run(v, func(t *testing.T) {
			srv := ollamatest.NewAs(v, tinyThink)
			t.Cleanup(srv.Close)
			srv.SetDefault(ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("hmm"), ollamatest.Tokens("ok")...)})
			h := newHarnessOn(t, 100, 30, srv, session.Options{Model: tinyThink.Name})
			h.runSlash("/think loud")
			if !strings.Contains(allText(h.m), `no such think setting "loud"`) || h.sess.Think() != "" {
				t.Fatalf("a bad setting: %q\n%s", h.sess.Think(), allText(h.m))
			}
			h.m.input.reset()
			h.runSlash("/think max")
			if !strings.Contains(allText(h.m), "think: max, from the next message") {
				t.Fatalf("no confirmation:\n%s", allText(h.m))
			}
			h.send("hi")
			reqs := srv.Requests()
			if th := reqs[len(reqs)-1].Think; th == nil || th.Value != "max" {
				t.Fatalf("think sent %+v, want \"max\"", th)
			}
			if v == ollamatest.V03215 {
				if hist := h.sess.History(); len(hist) != 2 || hist[1].Thinking != "hmm" {
					t.Fatalf("v0.32.15 took max: history %+v", hist)
				}
				return
			}
			text := allText(h.m)
			for _, want := range []string{`invalid think value: "max"`, "takes no thinking level", "/think on"} {
				if !strings.Contains(text, want) {
					t.Errorf("the refusal lacks %q:\n%s", want, text)
				}
			}
			if h.m.input.value() != "hi" || len(h.sess.History()) != 0 {
				t.Fatalf("input %q, history %+v", h.m.input.value(), h.sess.History())
			}
			h.key(tea.KeyCtrlC)
			h.runSlash("/think on")
			h.key(tea.KeyEnter) // "hi" came back after the command
			h.untilTurnDone()
			if hist := h.sess.History(); len(hist) != 2 || hist[0].Content != "hi" || hist[1].Thinking != "hmm" {
				t.Fatalf("after /think on: %+v", hist)
			}
		})
	}
}
