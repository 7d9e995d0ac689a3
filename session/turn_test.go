package session_test

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/session"
	"latch/session/ollamatest"
)

const (
	thinkText = "The user greets me. I should greet them back, briefly."
	replyText = "Hello! I'm **here** to help: ask me anything, e.g. `go test -race`.\n\nBye."
)

func TestTurnStreamsThinkingThenContent(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens(thinkText), ollamatest.Tokens(replyText)...)})
	s := newSession(t, srv, session.Options{Model: "qwen3:8b", ID: "test-session"})
	r := newReader(t, s)

	send(t, s, "hi")
	evs := r.turn()

	// Order: user_message, thinking deltas, assistant deltas,
	// assistant_message, turn_done, and nothing else.
	if um, ok := evs[0].(*session.UserMessage); !ok || um.Text != "hi" || um.Turn != 1 {
		t.Fatalf("first event = %#v, want user_message \"hi\" of turn 1", evs[0])
	}
	phase := 0 // 0 thinking, 1 content, 2 message, 3 done
	for i, e := range evs[1:] {
		if e.Head().Type == session.TypeMessage {
			continue // the conversation as logged, not part of what is shown
		}
		want := map[string]int{
			session.TypeThinkingDelta: 0, session.TypeAssistantDelta: 1,
			session.TypeAssistantMessage: 2, session.TypeTurnDone: 3,
		}
		p, ok := want[e.Head().Type]
		if !ok || p < phase || (p >= 2 && p == phase) {
			t.Fatalf("event %d (%s) out of order: %s", i+1, e.Head().Type, kinds(evs))
		}
		phase = p
	}
	if n := len(of[*session.ThinkingDelta](evs)); n < 2 {
		t.Errorf("%d thinking deltas, want it streamed in pieces", n)
	}
	if n := len(of[*session.AssistantDelta](evs)); n < 2 {
		t.Errorf("%d assistant deltas, want it streamed in pieces", n)
	}
	content, thinking := texts(evs)
	if content != replyText {
		t.Errorf("deltas give content %q, want %q", content, replyText)
	}
	if thinking != thinkText {
		t.Errorf("deltas give thinking %q, want %q", thinking, thinkText)
	}

	msg := one[*session.AssistantMessage](t, evs)
	if msg.Content != replyText || msg.Thinking != thinkText || msg.Partial || msg.Turn != 1 {
		t.Errorf("assistant_message = %+v, want the whole reply, not partial", msg)
	}
	d := done(t, evs)
	if d.Reason != session.ReasonStop || d.Turn != 1 {
		t.Errorf("turn_done = %+v, want reason stop, turn 1", d)
	}
	if d.Metrics.EvalTokens <= 0 || d.Metrics.PromptTokens <= 0 || d.Metrics.EvalDuration <= 0 || d.Metrics.TotalDuration <= 0 {
		t.Errorf("metrics missing: %+v", d.Metrics)
	}
	if tps := d.Metrics.TokensPerSecond(); tps <= 0 {
		t.Errorf("TokensPerSecond = %v, want > 0", tps)
	}
	for _, e := range evs {
		h := e.Head()
		if h.SessionID != "test-session" || h.Time.IsZero() {
			t.Errorf("%s header = %+v, want the session id and a time", h.Type, h)
		}
	}

	want := []session.Message{
		{Role: "user", Content: "hi"},
		{Role: "assistant", Content: replyText, Thinking: thinkText},
	}
	if h := s.History(); !slices.Equal(h, want) {
		t.Errorf("History = %+v, want %+v", h, want)
	}
	if s.Running() {
		t.Error("Running after turn_done")
	}
}

func TestTurnLengthIsNotPartial(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(ollamatest.TextTurn("one two three four five six"))
	s := newSession(t, srv, session.Options{Model: "tiny", Options: map[string]any{"num_predict": 3}})
	r := newReader(t, s)

	send(t, s, "count")
	evs := r.turn()
	if d := done(t, evs); d.Reason != session.ReasonLength {
		t.Errorf("reason = %q, want %q", d.Reason, session.ReasonLength)
	}
	msg := one[*session.AssistantMessage](t, evs)
	if msg.Content != "one two three" || msg.Partial {
		t.Errorf("assistant_message = %+v, want \"one two three\", not partial", msg)
	}
	if n := len(of[*session.Error](evs)); n != 0 {
		t.Errorf("%d error events for a reply that hit num_predict", n)
	}
}

func TestThink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		model     string
		think     *bool
		wantThink any // nil: no think field in the request
		thinking  bool
	}{
		{"true on a thinking model", "qwen3:8b", ptr(true), true, true},
		{"false on a thinking model", "qwen3:8b", ptr(false), false, false},
		{"true on a model that cannot think", "tiny", ptr(true), nil, false},
		{"false on a model that cannot think", "tiny", ptr(false), nil, false},
		{"unset on a thinking model", "qwen3:8b", nil, nil, true},
		{"unset on a model that cannot think", "tiny", nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			srv.Script(ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("hmm, a test"), ollamatest.Tokens("answer")...)})
			s := newSession(t, srv, session.Options{Model: tt.model, Think: tt.think})
			r := newReader(t, s)

			send(t, s, "q")
			evs := r.turn()
			if d := done(t, evs); d.Reason != session.ReasonStop {
				t.Fatalf("turn ended %q, want stop: %s", d.Reason, kinds(evs))
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d chat requests, want 1", len(reqs))
			}
			got := reqs[0].Think
			switch {
			case tt.wantThink == nil && got != nil:
				t.Errorf("request has think %v, want no think field", got.Value)
			case tt.wantThink != nil && (got == nil || got.Value != tt.wantThink):
				t.Errorf("request think = %v, want %v", got, tt.wantThink)
			}
			content, thinking := texts(evs)
			if content != "answer" {
				t.Errorf("content %q", content)
			}
			if (thinking != "") != tt.thinking {
				t.Errorf("thinking streamed %q, want thinking: %v", thinking, tt.thinking)
			}
		})
	}
}

func TestOptionsAndKeepAlivePassedThrough(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{
		Model:     "tiny",
		Options:   map[string]any{"temperature": 0.2, "num_ctx": 16384},
		KeepAlive: ptr(5 * time.Minute),
	})
	r := newReader(t, s)
	send(t, s, "hi")
	if d := done(t, r.turn()); d.Reason != session.ReasonStop {
		t.Fatalf("reason %q", d.Reason)
	}
	req := srv.Requests()[0]
	if req.Model != "tiny" {
		t.Errorf("model = %q", req.Model)
	}
	if req.Options["temperature"] != 0.2 || req.Options["num_ctx"] != float64(16384) {
		t.Errorf("options = %v, want temperature 0.2 and num_ctx 16384", req.Options)
	}
	if req.KeepAlive == nil || req.KeepAlive.Duration != 5*time.Minute {
		t.Errorf("keep_alive = %v, want 5m", req.KeepAlive)
	}
	if req.Stream != nil && !*req.Stream {
		t.Error("the request asks for no streaming")
	}

	// Without them, nothing is sent: Ollama's defaults apply.
	srv2 := newServer(t)
	s2 := newSession(t, srv2, session.Options{Model: "tiny"})
	r2 := newReader(t, s2)
	send(t, s2, "hi")
	r2.turn()
	req = srv2.Requests()[0]
	if req.KeepAlive != nil || len(req.Options) != 0 {
		t.Errorf("keep_alive %v options %v, want neither", req.KeepAlive, req.Options)
	}
}

func TestConversationIsKept(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(
		ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("Say a number."), ollamatest.Tokens("Forty-two.")...)},
		ollamatest.TextTurn("You asked for a number."),
	)
	s := newSession(t, srv, session.Options{Model: "qwen3:8b", Think: ptr(true)})
	r := newReader(t, s)

	send(t, s, "pick a number")
	if d := done(t, r.turn()); d.Reason != session.ReasonStop {
		t.Fatalf("turn 1: %q", d.Reason)
	}
	send(t, s, "what did I ask?")
	evs := r.turn()
	if um := one[*session.UserMessage](t, evs); um.Turn != 2 {
		t.Errorf("second user_message has turn %d", um.Turn)
	}
	if d := done(t, evs); d.Reason != session.ReasonStop || d.Turn != 2 {
		t.Fatalf("turn 2: %+v", d)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	got := reqs[1].Messages
	want := []api.Message{
		{Role: "user", Content: "pick a number"},
		{Role: "assistant", Content: "Forty-two.", Thinking: "Say a number."},
		{Role: "user", Content: "what did I ask?"},
	}
	if len(got) != len(want) {
		t.Fatalf("second request has %d messages: %+v", len(got), got)
	}
	for i := range want {
		if got[i].Role != want[i].Role || got[i].Content != want[i].Content || got[i].Thinking != want[i].Thinking {
			t.Errorf("message %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if h := s.History(); len(h) != 4 || h[3].Content != "You asked for a number." {
		t.Errorf("History = %+v", h)
	}
}

// longTurn streams slowly enough for a test to act in the middle.
func longTurn() ollamatest.Turn {
	// 1,000 tokens at 20ms: 20s, far more than a test waits before acting.
	return ollamatest.Turn{Chunks: ollamatest.Tokens(ollamatest.Markdown(1000)), Delay: 20 * time.Millisecond}
}

func isDelta(n int) func(session.Event) bool {
	seen := 0
	return func(e session.Event) bool {
		if _, ok := e.(*session.AssistantDelta); ok {
			seen++
		}
		return seen >= n
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	full := longTurn()
	srv.Script(full, ollamatest.TextTurn("Fresh answer."))
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)

	send(t, s, "write a lot")
	before := r.until(isDelta(3))
	if !s.Running() {
		t.Fatal("not Running while streaming")
	}
	s.Cancel()
	evs := append(before, r.turn()...)

	d := done(t, evs)
	if d.Reason != session.ReasonCancelled {
		t.Fatalf("reason %q, want cancelled: %s", d.Reason, kinds(evs))
	}
	if n := len(of[*session.Error](evs)); n != 0 {
		t.Errorf("cancelling is not an error, got %s", kinds(evs))
	}
	content, _ := texts(evs)
	var whole strings.Builder
	for _, c := range full.Chunks {
		whole.WriteString(c.Content)
	}
	if content == "" || len(content) >= whole.Len() || !strings.HasPrefix(whole.String(), content) {
		t.Fatalf("streamed %d bytes of %d, want a strict prefix", len(content), whole.Len())
	}
	msg := one[*session.AssistantMessage](t, evs)
	if !msg.Partial || msg.Content != content {
		t.Errorf("assistant_message partial=%v content %q, want partial with what streamed (%q)", msg.Partial, msg.Content, content)
	}
	if n := srv.WaitCancelled(1, timeout); n < 1 {
		t.Errorf("the server never saw the client go away (Cancelled = %d)", n)
	}
	if s.Running() {
		t.Error("Running after the cancelled turn_done")
	}

	// The partial reply stays in the conversation, and a new turn works.
	if h := s.History(); len(h) != 2 || h[1].Role != "assistant" || h[1].Content != content {
		t.Errorf("History = %+v, want the partial reply kept", h)
	}
	send(t, s, "again")
	evs = r.turn()
	if d := done(t, evs); d.Reason != session.ReasonStop {
		t.Fatalf("turn after cancel: %s", kinds(evs))
	}
	if msg := one[*session.AssistantMessage](t, evs); msg.Content != "Fresh answer." || msg.Partial {
		t.Errorf("turn after cancel: %+v", msg)
	}
	reqs := srv.Requests()
	if m := reqs[len(reqs)-1].Messages; len(m) != 3 || m[1].Content != content {
		t.Errorf("second request messages = %+v, want the partial reply resent", m)
	}
}

func TestCancelBeforeFirstToken(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("too late"), Delay: 10 * time.Second})
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)

	send(t, s, "hi")
	srv.WaitRequests(1, timeout)
	s.Cancel()
	evs := r.turn()
	if d := done(t, evs); d.Reason != session.ReasonCancelled {
		t.Errorf("reason %q, want cancelled: %s", d.Reason, kinds(evs))
	}
	if n := len(of[*session.Error](evs)) + len(of[*session.AssistantMessage](evs)); n != 0 {
		t.Errorf("want no error and no reply: %s", kinds(evs))
	}
	if h := s.History(); len(h) != 1 {
		t.Errorf("History = %+v, want only the prompt", h)
	}
}

func TestCutStream(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("one two three four five"), CutAfter: 3})
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)

	send(t, s, "count")
	evs := r.turn()
	msg := failed(t, evs, session.ReasonCutOff)
	containsAll(t, msg, "cut off")
	am := one[*session.AssistantMessage](t, evs)
	if am.Content != "one two three" || !am.Partial {
		t.Errorf("assistant_message = %+v, want partial \"one two three\"", am)
	}
	if h := s.History(); len(h) != 2 || !strings.HasPrefix(h[1].Content, "one two three\n\n[cut off") {
		t.Errorf("History = %+v, want the partial reply kept, marked cut off", h)
	}
}

func TestMissingModel(t *testing.T) {
	t.Parallel()
	for _, think := range []*bool{nil, ptr(true)} {
		srv := newServer(t)
		s := newSession(t, srv, session.Options{Model: "llama3.2:3b", Think: think})
		r := newReader(t, s)
		send(t, s, "hi")
		evs := r.turn()
		msg := failed(t, evs, session.ReasonError)
		containsAll(t, msg, "llama3.2:3b", "not found", "ollama pull llama3.2:3b")
		if n := len(of[*session.AssistantMessage](evs)); n != 0 {
			t.Errorf("a reply from a missing model: %s", kinds(evs))
		}
	}
}

// closedAddr returns an address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

func TestUnreachableHost(t *testing.T) {
	t.Parallel()
	for _, think := range []*bool{nil, ptr(true)} {
		addr := closedAddr(t)
		client := api.NewClient(&url.URL{Scheme: "http", Host: addr}, &http.Client{})
		s := session.New(session.Options{Client: client, Host: addr, Model: "tiny", Think: think})
		t.Cleanup(s.Close)
		r := newReader(t, s)

		// Nothing listens there: the turn ends (within the reader's hang
		// bound) on the refused connection, which the message names.
		send(t, s, "hi")
		evs := r.turn()
		msg := failed(t, evs, session.ReasonError)
		containsAll(t, msg, "cannot reach Ollama", addr, "(connection refused)", "ollama serve")

		// Models and SetModel say the same.
		_, err := s.Models(t.Context())
		var ue *session.UserError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "cannot reach Ollama") {
			t.Errorf("Models: %v, want a UserError saying Ollama cannot be reached", err)
		}
	}
}

func TestMidStreamError(t *testing.T) {
	t.Parallel()
	const oops = "an error was encountered while running the model"
	srv := newServer(t)
	srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("one two three four five six"), ErrorAfter: 4, Error: oops})
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)

	send(t, s, "count")
	evs := r.turn()
	// The reply began, then broke: it is cut off (see cutoff_test.go).
	msg := failed(t, evs, session.ReasonCutOff)
	containsAll(t, msg, oops)
	am := one[*session.AssistantMessage](t, evs)
	if am.Content != "one two three four" || !am.Partial {
		t.Errorf("assistant_message = %+v, want partial \"one two three four\"", am)
	}
	if h := s.History(); len(h) != 2 || !strings.HasPrefix(h[1].Content, "one two three four\n\n[cut off") {
		t.Errorf("History = %+v, want the partial reply kept, marked cut off", h)
	}
}

func TestStatusErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		turn ollamatest.Turn
		want []string
	}{
		{"no tools", ollamatest.Turn{Status: 400, Error: "registry.ollama.ai/library/tiny:latest does not support tools"},
			[]string{"400", "registry.ollama.ai/library/tiny:latest does not support tools"}},
		{"queue full", ollamatest.Turn{Status: 503, Error: "server busy, please try again.  maximum pending requests exceeded"},
			[]string{"503", "server busy, please try again."}},
		{"bad option", ollamatest.Turn{Status: 500, Error: `option "num_predict" must be of type integer`},
			[]string{"500", `option "num_predict" must be of type integer`}},
		{"no message", ollamatest.Turn{Status: 502}, []string{"502", "bad gateway"}},
		{"unauthorized", ollamatest.Turn{Status: 401, Error: "unauthorized"}, []string{"401"}},
		{"error before any chunk", ollamatest.Turn{Chunks: ollamatest.Tokens("never"), Error: "llama runner process has terminated: exit status 2"},
			[]string{"500", "llama runner process has terminated: exit status 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			srv.Script(tt.turn)
			s := newSession(t, srv, session.Options{Model: "tiny"})
			r := newReader(t, s)
			send(t, s, "hi")
			evs := r.turn()
			msg := failed(t, evs, session.ReasonError)
			containsAll(t, msg, tt.want...)
			if n := len(of[*session.AssistantMessage](evs)); n != 0 {
				t.Errorf("a reply on error: %s", kinds(evs))
			}
			// The session is usable again.
			srv.Script(ollamatest.TextTurn("ok"))
			send(t, s, "again")
			if d := done(t, r.turn()); d.Reason != session.ReasonStop {
				t.Errorf("next turn: %q", d.Reason)
			}
		})
	}
}

// TestNotOllamaIsNotAMissingModel: a server that answers 404 for the route
// itself (here the fake behind a wrong path prefix: "404 page not found") is
// not Ollama saying the model is missing, and pulling would not help.
func TestNotOllamaIsNotAMissingModel(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	u, err := url.Parse(srv.URL + "/wrong")
	if err != nil {
		t.Fatal(err)
	}
	host := srv.Host() + "/wrong"
	s := session.New(session.Options{Client: api.NewClient(u, &http.Client{}), Host: host, Model: "tiny"})
	t.Cleanup(s.Close)
	r := newReader(t, s)

	send(t, s, "hi")
	msg := failed(t, r.turn(), session.ReasonError)
	containsAll(t, msg, "404", "page not found")
	if strings.Contains(msg, "ollama pull") {
		t.Errorf("advises a pull for a route 404: %q", msg)
	}
	for name, call := range map[string]func() error{
		"SetModel": func() error { _, err := s.SetModel(t.Context(), "tiny"); return err },
		"Models":   func() error { _, err := s.Models(t.Context()); return err },
	} {
		err := call()
		if err == nil || strings.Contains(err.Error(), "ollama pull") || !strings.Contains(err.Error(), "404") {
			t.Errorf("%s = %v, want a 404 error that does not advise a pull", name, err)
		}
	}
}
