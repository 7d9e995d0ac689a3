package session_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// timeout bounds every wait in these tests for something that must come.
// It is generous on purpose (mcptestutil.HangBound: a minute): the suite
// runs under -race on two cores busy with other packages' tests, where 15
// seconds did not always do. A passing test never waits for it.
var timeout = mcptestutil.HangBound(15 * time.Second)

// Models of the fake server, named after real ones.
var (
	qwen = ollamatest.Model{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B", QuantizationLevel: "Q4_K_M",
		Size: 5_200_000_000, Capabilities: []string{"completion", "tools", "thinking"}, ContextLength: 40960}
	tiny = ollamatest.Model{Name: "tiny", Size: 1_000_000, ParameterSize: "10M", QuantizationLevel: "F16"}
)

// newServer starts a fake Ollama with the given models (qwen and tiny when
// none are given) and closes it when the test ends.
func newServer(t testing.TB, models ...ollamatest.Model) *ollamatest.Server {
	t.Helper()
	if len(models) == 0 {
		models = []ollamatest.Model{qwen, tiny}
	}
	srv := ollamatest.New(models...)
	t.Cleanup(srv.Close)
	return srv
}

// rawOf is the session's raw way to srv (session.RawOllama).
func rawOf(srv *ollamatest.Server) session.RawOllama {
	u, err := url.Parse(srv.URL)
	if err != nil {
		panic(err)
	}
	return session.RawOllama{URL: u, HTTP: srv.HTTPClient()}
}

// newServerAs is newServer for a fake that answers as the given Ollama
// version (ollamatest.Versions).
func newServerAs(t testing.TB, version string, models ...ollamatest.Model) *ollamatest.Server {
	t.Helper()
	if len(models) == 0 {
		models = []ollamatest.Model{qwen, tiny}
	}
	srv := ollamatest.NewAs(version, models...)
	t.Cleanup(srv.Close)
	return srv
}

// newSession makes a session talking to srv through the real api client,
// filling in Client and Host, and closes it when the test ends (before the
// server, since cleanups run last-in first-out).
func newSession(t testing.TB, srv *ollamatest.Server, o session.Options) *session.Session {
	t.Helper()
	o.Client = srv.Client()
	o.Host = srv.Host()
	o.Raw = rawOf(srv)
	s := session.New(o)
	t.Cleanup(s.Close)
	return s
}

// reader reads a Sub one event at a time. Sub.Next hands out batches, and a
// batch may hold the end of one turn and the start of the next, so what was
// not consumed yet is kept for the next call.
type reader struct {
	t       testing.TB
	sub     *session.Sub
	pending []session.Event
}

func newReader(t testing.TB, s *session.Session) *reader {
	return &reader{t: t, sub: s.Subscribe()}
}

// next returns the next event, or false when the subscription ended or ctx
// did.
func (r *reader) next(ctx context.Context) (session.Event, bool) {
	for len(r.pending) == 0 {
		evs, ok := r.sub.Next(ctx)
		if !ok {
			return nil, false
		}
		r.pending = evs
	}
	e := r.pending[0]
	r.pending = r.pending[1:]
	return e, true
}

// turn collects events until a TurnDone arrives and returns them in order,
// the TurnDone last. It fails the test if none comes within the timeout.
func (r *reader) turn() []session.Event {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out []session.Event
	for {
		e, ok := r.next(ctx)
		if !ok {
			r.t.Fatalf("no turn_done within %v (ctx: %v); got %s", timeout, ctx.Err(), kinds(out))
		}
		out = append(out, e)
		if _, done := e.(*session.TurnDone); done {
			return out
		}
	}
}

// until collects events until one satisfies stop, and returns them all.
func (r *reader) until(stop func(session.Event) bool) []session.Event {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out []session.Event
	for {
		e, ok := r.next(ctx)
		if !ok {
			r.t.Fatalf("event not seen within %v; got %s", timeout, kinds(out))
		}
		out = append(out, e)
		if stop(e) {
			return out
		}
	}
}

// kinds lists the events' types, for failure messages.
func kinds(evs []session.Event) string {
	var b strings.Builder
	b.WriteString("[")
	for i, e := range evs {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(e.Head().Type)
		switch e := e.(type) {
		case *session.TurnDone:
			fmt.Fprintf(&b, "(%s)", e.Reason)
		case *session.Error:
			fmt.Fprintf(&b, "(%q)", e.Message)
		}
	}
	b.WriteString("]")
	return b.String()
}

// of returns the events of type T, in order.
func of[T session.Event](evs []session.Event) []T {
	var out []T
	for _, e := range evs {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// one returns the only event of type T, failing the test unless there is
// exactly one.
func one[T session.Event](t testing.TB, evs []session.Event) T {
	t.Helper()
	xs := of[T](evs)
	if len(xs) != 1 {
		var zero T
		t.Fatalf("want exactly one %T, got %d in %s", zero, len(xs), kinds(evs))
	}
	return xs[0]
}

// done returns the TurnDone that ends evs.
func done(t testing.TB, evs []session.Event) *session.TurnDone {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	d, ok := evs[len(evs)-1].(*session.TurnDone)
	if !ok {
		t.Fatalf("last event is not turn_done: %s", kinds(evs))
	}
	return d
}

// texts concatenates the deltas of evs: the content and the thinking the
// user watched stream.
func texts(evs []session.Event) (content, thinking string) {
	var c, th strings.Builder
	for _, e := range evs {
		switch d := e.(type) {
		case *session.AssistantDelta:
			c.WriteString(d.Text)
		case *session.ThinkingDelta:
			th.WriteString(d.Text)
		}
	}
	return c.String(), th.String()
}

// failed checks a turn that went wrong: it ends with an Error event then a
// TurnDone with reason, and returns the error's message.
func failed(t testing.TB, evs []session.Event, reason string) string {
	t.Helper()
	d := done(t, evs)
	if d.Reason != reason {
		t.Fatalf("turn_done reason = %q, want %q; events %s", d.Reason, reason, kinds(evs))
	}
	e := one[*session.Error](t, evs)
	if len(evs) < 2 || evs[len(evs)-2] != session.Event(e) {
		t.Errorf("the error should come right before turn_done: %s", kinds(evs))
	}
	if e.Turn != d.Turn {
		t.Errorf("error turn %d, turn_done turn %d", e.Turn, d.Turn)
	}
	if strings.Contains(e.Message, "\n") {
		t.Errorf("error message is not one line: %q", e.Message)
	}
	return e.Message
}

// send calls s.Send and fails the test on error.
func send(t testing.TB, s *session.Session, text string) {
	t.Helper()
	if err := s.Send(text); err != nil {
		t.Fatalf("Send(%q): %v", text, err)
	}
}

// bounded returns a context that ends after the timeout, so that a broken
// session fails the test instead of hanging it.
func bounded(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

func ptr[T any](v T) *T { return &v }

// containsAll fails the test unless msg contains every one of subs.
func containsAll(t testing.TB, msg string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not contain %q", msg, s)
		}
	}
}
