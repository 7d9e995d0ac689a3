package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// samplingAsked is the first event of a request the person is asked about.
func samplingAsked(id string) *session.SamplingEvent {
	return &session.SamplingEvent{RequestID: id, Server: "every", Step: session.SamplingAsked, By: "policy", Mode: "ask",
		Reason:       "every@sampling is not allow-listed and every is in ask mode; asking the user",
		SystemPrompt: "You are a helpful test server.", MaxTokens: 100, ModelHints: []string{"claude-3-sonnet"},
		Roles:    []string{"user", "assistant", "user"},
		Messages: []string{"Resource trigger-sampling-request context: summarise the release notes", "Which ones?", "All of them, in two sentences."}}
}

// samplingReview is the rest of a request answered by the model and
// waiting for the person's review.
func samplingReview(id string) []session.Event {
	follow := func(step, by string) *session.SamplingEvent {
		return &session.SamplingEvent{RequestID: id, Server: "every", Step: step, By: by, Mode: "ask"}
	}
	done := follow(session.SamplingAnswered, "policy")
	done.Model, done.Review = "qwen3:8b", true
	done.Answer = "latch 0.3 brings live themes, a /theme command and a help overlay.\nThemes switch without a restart."
	return []session.Event{follow(session.SamplingAllowed, "user"),
		&session.SamplingDelta{RequestID: id, Text: "latch 0.3 brings"}, done}
}

// TestGoldenSamplingModal: the sampling modal asking (server, token limit,
// system prompt, messages) and in review with the model's answer, at
// 80×24, 120×40, 60×20 and 50×18: whole, its keys and border on screen.
func TestGoldenSamplingModal(t *testing.T) {
	for _, sz := range smallScreenSizes {
		w, h := sz.w, sz.h
		t.Run(fmt.Sprintf("asking_%dx%d", w, h), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "every")
			s.feed(&session.UserMessage{Turn: 1, Text: "try the sampling tool"}, samplingAsked("smp_1"))
			pastGuard(s.m)
			v := s.m.View()
			for _, want := range []string{"Let every use the model?", "limit   100 tokens", "You are a helpful test server.",
				"message 1 · user", "y let the model answer"} {
				if !strings.Contains(v, want) {
					t.Errorf("the modal lacks %q:\n%s", want, v)
				}
			}
			goldenScreen(t, s.m, w, h)
			wholeBox(t, s.m.View())
		})
		t.Run(fmt.Sprintf("review_%dx%d", w, h), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "every")
			s.feed(&session.UserMessage{Turn: 1, Text: "try the sampling tool"}, samplingAsked("smp_1"))
			pastGuard(s.m)
			s.m.Update(runes("y"))
			s.feed(samplingReview("smp_1")...)
			pastGuard(s.m)
			v := s.m.View()
			for _, want := range []string{"Send this answer to every?", "answer (qwen3:8b)", "live themes", "y send this answer to every"} {
				if !strings.Contains(v, want) {
					t.Errorf("the review lacks %q:\n%s", want, v)
				}
			}
			goldenScreen(t, s.m, w, h)
			wholeBox(t, s.m.View())
		})
	}
}

// TestSamplingModalKeys: the modal ignores keys for modalGuard and a burst
// of typed text always; PgDn scrolls; Esc refuses and the next waiting
// request's modal opens.
func TestSamplingModalKeys(t *testing.T) {
	s := screenModel(t, 80, 24, themes.Default(), "every")
	long := samplingAsked("smp_1")
	long.Messages[0] = strings.Repeat("a long message line\n", 40)
	s.feed(long, samplingAsked("smp_2"))
	md := s.m.sampling.modal
	if md == nil || md.c.id != "smp_1" {
		t.Fatal("no modal for the first request")
	}
	s.m.Update(runes("y")) // too soon
	s.m.Update(runes("yes"))
	pastGuard(s.m)
	s.m.Update(runes("yy")) // a burst is text
	if md.said {
		t.Fatal("a key typed too soon, or a burst, answered the modal")
	}
	before := s.m.View()
	s.m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	if after := s.m.View(); after == before || !strings.Contains(after, "lines 11–") {
		t.Errorf("PgDn did not scroll:\n%s", after)
	}
	s.key(tea.KeyEsc)
	if md := s.m.sampling.modal; md == nil || md.c.id != "smp_2" {
		t.Fatal("Esc did not close the first request's modal and open the next")
	}
}

// samplingToolServer is an in-process server whose tool "ask" asks for
// model time with a hostile system prompt and message, and returns the
// answer (or the error) as its result.
func samplingToolServer(plant string) *mcpserver.MCPServer {
	srv := mcpserver.NewMCPServer("every", "1", mcpserver.WithToolCapabilities(true))
	srv.AddTool(mcpgo.NewTool("ask"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		var r mcpgo.CreateMessageRequest
		r.SystemPrompt, r.MaxTokens = "system says "+plant, 60
		r.Messages = []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent("tell me a fact " + plant)}}
		res, err := srv.RequestSampling(ctx, r) //nolint:staticcheck // deprecated in protocol 2026-07-28; latch pins a legacy one
		if err != nil {
			return mcpgo.NewToolResultError("sampling failed: " + err.Error()), nil
		}
		text, _ := mcpgo.AsTextContent(res.Content)
		return mcpgo.NewToolResultText("the model said: " + text.Text), nil
	})
	return srv
}

// samplingHarness is a UI over a real session and the fake Ollama, with
// the every server of samplingToolServer(plant) connected: its ask tool
// runs without asking, its sampling requests are asked about.
func samplingHarness(t *testing.T, plant string) *harness {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		Servers: []session.ServerConfig{{Name: "every", Transport: "inprocess", InProcess: samplingToolServer(plant)}},
		Policy:  permissions.Policy{Mode: permissions.Ask, ServerAllow: map[string][]string{"every": {"ask"}}}})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 })
	return h
}

// TestSamplingModalEndToEnd drives the modal with keys through a real
// session and the fake Ollama: y lets the model answer, the answer
// streams into the modal, y sends it (the tool's result holds it); then a
// second request: y, and n at the review refuses it (the server is told).
// The hostile text the server planted never reaches the screen raw.
func TestSamplingModalEndToEnd(t *testing.T) {
	plant := mcptestutil.Plant("PLANTED")
	h := samplingHarness(t, plant)
	ol, m := h.srv, h.m
	call := toolCall("call_ask", "every__ask")
	answer := ollamatest.Turn{Chunks: ollamatest.Tokens("Octopuses have three hearts."), Delay: 5 * time.Millisecond}
	for _, c := range []struct {
		send bool
		want string
	}{
		{true, "the model said: Octopuses have three hearts."},
		{false, "the user refused this sampling request"},
	} {
		ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{call}}, answer, ollamatest.TextTurn("done"))
		h.typeText("ask the server")
		h.key(tea.KeyEnter)
		h.until(func() bool { return m.sampling.modal != nil })
		v := m.View()
		if !strings.Contains(v, "Let every use the model?") || !strings.Contains(v, "system says") || !strings.Contains(v, "limit   60 tokens") {
			t.Fatalf("the modal does not show the request:\n%s", v)
		}
		if bad := mcptestutil.FirstForbidden(v); bad != "" {
			t.Fatalf("%q on screen:\n%s", bad, v)
		}
		pastGuard(m)
		m.Update(runes("y"))
		h.until(func() bool { md := m.sampling.modal; return md != nil && md.stage() == stageReview })
		v = m.View()
		if !strings.Contains(v, "Send this answer to every?") || !strings.Contains(v, "Octopuses have three hearts.") {
			t.Fatalf("the review does not show the answer:\n%s", v)
		}
		pastGuard(m)
		if c.send {
			m.Update(runes("y"))
		} else {
			m.Update(runes("n"))
		}
		h.untilTurnDone()
		all := allText(m)
		if !strings.Contains(all, c.want) {
			t.Errorf("send=%v: the tool's result lacks %q:\n%s", c.send, c.want, all)
		}
		if bad := mcptestutil.FirstForbidden(m.View() + all); bad != "" {
			t.Errorf("%q on screen", bad)
		}
		if m.sampling.modal != nil {
			t.Error("the modal stayed open")
		}
	}
	all := allText(m)
	for _, want := range []string{"⇄ sampling · every asks for model time (ask mode)", "✓ sent to every", "⛔ refused: the user refused the answer"} {
		if !strings.Contains(all, want) {
			t.Errorf("the chat lacks the card line %q:\n%s", want, all)
		}
	}
}
