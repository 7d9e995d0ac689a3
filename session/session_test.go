package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"latch/session"
	"latch/session/ollamatest"
)

func TestStartAnnouncesModelAndHost(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "tiny"})
	if s.ID() == "" || s.Host() != srv.Host() {
		t.Errorf("ID %q Host %q", s.ID(), s.Host())
	}
	r := newReader(t, s)
	s.Start()
	ev := r.until(func(session.Event) bool { return true })[0]
	st, ok := ev.(*session.SessionStarted)
	if !ok || st.Model != "tiny" || st.Host != srv.Host() || st.SessionID != s.ID() || st.Type != session.TypeSessionStarted {
		t.Errorf("first event = %#v, want session_started with model and host", ev)
	}
	if a, b := session.NewID(), session.NewID(); a == b {
		t.Errorf("NewID gave %q twice", a)
	}
}

func TestSendWhileRunningIsBusy(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(longTurn())
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)

	send(t, s, "first")
	if err := s.Send("second"); !errors.Is(err, session.ErrBusy) {
		t.Fatalf("Send while running = %v, want ErrBusy", err)
	}
	s.Cancel()
	evs := r.turn()
	if n := len(of[*session.UserMessage](evs)); n != 1 {
		t.Errorf("the refused prompt was published: %s", kinds(evs))
	}
	for _, m := range s.History() {
		if m.Content == "second" {
			t.Errorf("the refused prompt is in the history: %+v", s.History())
		}
	}
}

func TestSendWithoutModel(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{})
	r := newReader(t, s)

	if err := s.Send("hi"); !errors.Is(err, session.ErrNoModel) {
		t.Fatalf("Send without model = %v, want ErrNoModel", err)
	}
	if !strings.Contains(session.ErrNoModel.Error(), "/model") {
		t.Errorf("ErrNoModel does not say how to pick one: %q", session.ErrNoModel)
	}
	if h := s.History(); len(h) != 0 {
		t.Errorf("History = %+v", h)
	}
	if _, err := s.Probe(t.Context()); !errors.Is(err, session.ErrNoModel) {
		t.Errorf("Probe without model = %v, want ErrNoModel", err)
	}

	// Choosing one makes Send work.
	if _, err := s.SetModel(t.Context(), "tiny"); err != nil {
		t.Fatal(err)
	}
	send(t, s, "hi")
	evs := r.turn()
	if mc, ok := evs[0].(*session.ModelChanged); !ok || mc.Model != "tiny" {
		t.Errorf("first event = %#v, want model_changed tiny", evs[0])
	}
	if d := done(t, evs); d.Reason != session.ReasonStop {
		t.Errorf("reason %q", d.Reason)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != "tiny" {
		t.Errorf("requests %+v", reqs)
	}
}

func TestWaitReturnsAfterTurnDone(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "tiny"})
	s.Wait() // no turn yet: returns at once
	r := newReader(t, s)
	send(t, s, "hi")
	s.Wait()
	if s.Running() {
		t.Error("Running after Wait")
	}
	// Everything was published before Wait returned.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var evs []session.Event
	for {
		e, ok := r.next(ctx)
		if !ok {
			break
		}
		evs = append(evs, e)
	}
	if len(evs) == 0 {
		t.Fatal("no events after Wait")
	}
	if d := done(t, evs); d.Reason != session.ReasonStop {
		t.Errorf("reason %q", d.Reason)
	}
}

func TestClear(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)

	send(t, s, "remember this")
	r.turn()
	if h := s.History(); len(h) != 2 {
		t.Fatalf("History = %+v", h)
	}
	s.Clear()
	if h := s.History(); len(h) != 0 {
		t.Fatalf("History after Clear = %+v", h)
	}
	send(t, s, "fresh start")
	r.turn()
	reqs := srv.Requests()
	if m := reqs[len(reqs)-1].Messages; len(m) != 1 || m[0].Content != "fresh start" {
		t.Errorf("request after Clear has messages %+v, want only the new prompt", m)
	}

	// Clear during a turn cancels it, and its partial reply does not come
	// back afterwards.
	srv.Script(longTurn())
	send(t, s, "long one")
	r.until(isDelta(2))
	s.Clear()
	if s.Running() {
		t.Error("Running after Clear")
	}
	if h := s.History(); len(h) != 0 {
		t.Errorf("History after Clear = %+v", h)
	}
	if d := done(t, r.turn()); d.Reason != session.ReasonCancelled {
		t.Errorf("the cleared turn ended %q", d.Reason)
	}
}

func TestHistoryIsACopy(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)
	send(t, s, "hi")
	r.turn()
	h := s.History()
	h[0].Content = "changed"
	if s.History()[0].Content != "hi" {
		t.Error("changing History's result changed the session")
	}
}

func TestCloseEndsSubscriptions(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "tiny"})
	sub := s.Subscribe()

	// A reader blocked in Next is woken by Close.
	ctx := bounded(t)
	ended := make(chan bool)
	go func() {
		_, ok := sub.Next(ctx)
		ended <- ok
	}()
	s.Close()
	if ok := <-ended; ok {
		t.Error("Next returned true after Close with nothing queued")
	}
	if ctx.Err() != nil {
		t.Fatal("Next still blocked after Close")
	}
	if _, ok := sub.Next(ctx); ok {
		t.Error("Next after Close returned true")
	}
	s.Close() // twice is fine
}

func TestCloseDuringTurn(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(longTurn())
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)

	send(t, s, "write a lot")
	r.until(isDelta(2))
	s.Close()
	if s.Running() {
		t.Error("Running after Close")
	}
	// What was published before Close is still delivered, ending with the
	// cancelled turn_done; then the subscription ends.
	evs := r.turn()
	if d := done(t, evs); d.Reason != session.ReasonCancelled {
		t.Errorf("reason %q", d.Reason)
	}
	if msg := one[*session.AssistantMessage](t, evs); !msg.Partial {
		t.Errorf("assistant_message not partial: %+v", msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if e, ok := r.next(ctx); ok {
		t.Errorf("event after the last turn_done: %s", e.Head().Type)
	}
	if ctx.Err() != nil {
		t.Error("Next blocked after Close instead of returning false")
	}
	if n := srv.WaitCancelled(1, timeout); n < 1 {
		t.Errorf("server Cancelled = %d", n)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	srv := newServer(t,
		ollamatest.Model{Name: "zeta"},
		qwen,
		ollamatest.Model{Name: "alpha:1b", Family: "gemma3", Capabilities: []string{"completion", "tools"}, ContextLength: 8192},
	)
	s := newSession(t, srv, session.Options{Model: "tiny"})

	ms, err := s.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, ","); got != "alpha:1b,qwen3:8b,zeta:latest" {
		t.Fatalf("Models names = %s, want sorted alpha:1b,qwen3:8b,zeta:latest", got)
	}
	tests := []struct {
		tools, thinking bool
		ctxLen          int
		family          string
	}{
		{true, false, 8192, "gemma3"},
		{true, true, 40960, "qwen3"},
		{false, false, 32768, "llama"},
	}
	for i, tt := range tests {
		m := ms[i]
		if m.Tools() != tt.tools || m.Thinking() != tt.thinking {
			t.Errorf("%s: tools %v thinking %v, want %v %v (caps %v)", m.Name, m.Tools(), m.Thinking(), tt.tools, tt.thinking, m.Capabilities)
		}
		if m.ContextLength != tt.ctxLen || m.Family != tt.family {
			t.Errorf("%s: context %d family %q, want %d %q", m.Name, m.ContextLength, m.Family, tt.ctxLen, tt.family)
		}
	}
	if q := ms[1]; q.Size != qwen.Size || q.ParameterSize != "8.2B" || q.Quantization != "Q4_K_M" {
		t.Errorf("qwen3:8b = %+v", q)
	}

	// A server without models lists nothing, without error.
	bare := ollamatest.New()
	t.Cleanup(bare.Close)
	empty := newSession(t, bare, session.Options{})
	if ms, err := empty.Models(t.Context()); err != nil || len(ms) != 0 {
		t.Errorf("Models = %v, %v, want none", ms, err)
	}
}

func TestSetModel(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "tiny", Think: ptr(true)})
	r := newReader(t, s)

	_, err := s.SetModel(t.Context(), "mistral:7b")
	var ue *session.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("SetModel(unknown) = %#v, want a *UserError", err)
	}
	containsAll(t, ue.Error(), "mistral:7b", "ollama pull mistral:7b")
	if s.Model() != "tiny" {
		t.Errorf("Model after a failed SetModel = %q, want tiny kept", s.Model())
	}

	info, err := s.SetModel(t.Context(), "qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "qwen3:8b" || !info.Thinking() || !info.Tools() || info.ContextLength != 40960 {
		t.Errorf("SetModel info = %+v", info)
	}
	if s.Model() != "qwen3:8b" {
		t.Errorf("Model = %q", s.Model())
	}
	// The failed switch published nothing; the good one model_changed.
	evs := r.until(func(session.Event) bool { return true })
	if mc, ok := evs[0].(*session.ModelChanged); !ok || mc.Model != "qwen3:8b" {
		t.Fatalf("first event = %#v, want model_changed qwen3:8b", evs[0])
	}

	// The next turn goes to the new model, with think (it can think).
	send(t, s, "hi")
	r.turn()
	req := srv.Requests()[0]
	if req.Model != "qwen3:8b" || req.Think == nil || req.Think.Value != true {
		t.Errorf("request model %q think %v", req.Model, req.Think)
	}
}

func TestProbe(t *testing.T) {
	t.Parallel()
	srv := newServer(t)

	s := newSession(t, srv, session.Options{Model: "qwen3:8b"})
	info, err := s.Probe(t.Context())
	if err != nil || info.Name != "qwen3:8b" || !info.Thinking() || info.ContextLength != 40960 {
		t.Errorf("Probe = %+v, %v", info, err)
	}

	missing := newSession(t, srv, session.Options{Model: "nope"})
	_, err = missing.Probe(t.Context())
	var ue *session.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("Probe(missing) = %v, want a *UserError", err)
	}
	containsAll(t, ue.Msg, "ollama pull nope")
	if missing.Model() != "nope" {
		t.Errorf("Probe changed the model to %q", missing.Model())
	}
}

// The wire names are read by scripts (docs/SESSIONS.md: "Sessions on disk").
func TestEventJSON(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	s := newSession(t, srv, session.Options{Model: "tiny", ID: "sid"})
	r := newReader(t, s)
	send(t, s, "hi")
	for _, e := range r.turn() {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] != e.Head().Type || m["session_id"] != "sid" {
			t.Errorf("%s", b)
		}
		if _, err := time.Parse(time.RFC3339, m["time"].(string)); err != nil {
			t.Errorf("time: %v", err)
		}
		if e.Head().Type == session.TypeTurnDone {
			metrics, _ := m["metrics"].(map[string]any)
			if m["reason"] != "stop" || metrics["eval_count"] == nil || m["turn"] != float64(1) {
				t.Errorf("turn_done JSON %s", b)
			}
		}
	}
}
