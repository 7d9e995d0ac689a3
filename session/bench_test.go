package session_test

import (
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// BenchmarkTurn measures one 1,000-token turn end to end: the prompt goes
// through the real api client to the fake server, which streams without
// delay, and every event is drained from a subscription. For reference only.
func BenchmarkTurn(b *testing.B) {
	srv := newServer(b, tiny)
	chunks := ollamatest.Tokens(ollamatest.Markdown(1000))[:1000]
	srv.SetDefault(ollamatest.Turn{Chunks: chunks})
	s := newSession(b, srv, session.Options{Model: "tiny"})
	r := newReader(b, s)
	b.ReportAllocs()
	for b.Loop() {
		s.Clear() // keep the prompt the same size every turn
		send(b, s, "write")
		evs := r.turn()
		if d := done(b, evs); d.Reason != session.ReasonStop || d.Metrics.EvalTokens != len(chunks) {
			b.Fatalf("turn ended %q with %d tokens", d.Reason, d.Metrics.EvalTokens)
		}
	}
	b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "tokens/s")
}
