package session_test

import (
	"context"
	"testing"
	"time"

	"latch/session"
)

// drain reads sub until want events arrived, failing on timeout.
func drain(t *testing.T, sub *session.Sub, want int) []session.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out []session.Event
	for len(out) < want {
		evs, ok := sub.Next(ctx)
		if !ok {
			t.Fatalf("Next ended after %d of %d events", len(out), want)
		}
		out = append(out, evs...)
	}
	return out
}

// TestBrokerPublishNeverBlocks: a subscriber that does not read (a busy UI)
// must not slow the stream reader down, and loses nothing.
func TestBrokerPublishNeverBlocks(t *testing.T) {
	t.Parallel()
	const n = 100_000
	var b session.Broker
	idle := b.Subscribe()   // never reads while publishing
	active := b.Subscribe() // reads concurrently

	got := make(chan []session.Event)
	go func() {
		var out []session.Event
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		for len(out) < n {
			evs, ok := active.Next(ctx)
			if !ok {
				break
			}
			out = append(out, evs...)
		}
		got <- out
	}()

	// How fast Publish is beside a subscriber that does not read is
	// BenchmarkBrokerPublishBesideIdle's; here it must only never block.
	published := make(chan struct{})
	go func() {
		for i := range n {
			b.Publish(&session.AssistantDelta{Turn: i})
		}
		close(published)
	}()
	select {
	case <-published:
	case <-time.After(timeout):
		t.Fatal("Publish blocked on a subscriber that does not read")
	}

	check := func(name string, evs []session.Event) {
		t.Helper()
		if len(evs) != n {
			t.Fatalf("%s got %d events, want %d", name, len(evs), n)
		}
		for i, e := range evs {
			if d, ok := e.(*session.AssistantDelta); !ok || d.Turn != i {
				t.Fatalf("%s: event %d is %#v, want delta %d (in order)", name, i, e, i)
			}
		}
	}
	check("idle subscriber", drain(t, idle, n))
	check("active subscriber", <-got)
}

func TestBrokerSubscribeSeesOnlyLaterEvents(t *testing.T) {
	t.Parallel()
	var b session.Broker
	b.Publish(&session.AssistantDelta{Text: "before"})
	sub := b.Subscribe()
	b.Publish(&session.AssistantDelta{Text: "after"})
	evs := drain(t, sub, 1)
	if len(evs) != 1 || evs[0].(*session.AssistantDelta).Text != "after" {
		t.Errorf("got %s", kinds(evs))
	}
}

func TestBrokerClose(t *testing.T) {
	t.Parallel()
	var b session.Broker
	sub := b.Subscribe()
	for i := range 3 {
		b.Publish(&session.AssistantDelta{Turn: i})
	}
	b.Close()
	b.Publish(&session.AssistantDelta{Turn: 99}) // after Close: dropped, no panic

	// What was queued is still delivered, then Next reports the end.
	ctx := bounded(t)
	evs, ok := sub.Next(ctx)
	if !ok || len(evs) != 3 {
		t.Fatalf("Next after Close = %d events, %v; want the 3 queued", len(evs), ok)
	}
	if evs, ok := sub.Next(ctx); ok {
		t.Errorf("Next after draining a closed broker = %d events, true", len(evs))
	}
	if ctx.Err() != nil {
		t.Error("Next blocked on a closed broker until the timeout")
	}
	b.Close() // twice is fine
}

func TestSubNextHonoursContext(t *testing.T) {
	t.Parallel()
	var b session.Broker
	sub := b.Subscribe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if evs, ok := sub.Next(ctx); ok {
		t.Errorf("Next with nothing published = %d events, true", len(evs))
	}
	// The subscription still works afterwards.
	b.Publish(&session.AssistantDelta{Text: "x"})
	if evs := drain(t, sub, 1); len(evs) != 1 {
		t.Errorf("got %s", kinds(evs))
	}
}

// BenchmarkBrokerPublishBesideIdle is Publish's cost per event with one
// subscriber that never reads (a busy UI) beside one that does;
// TestBrokerPublishNeverBlocks checks only that it never blocks.
func BenchmarkBrokerPublishBesideIdle(b *testing.B) {
	var br session.Broker
	_ = br.Subscribe() // never reads
	active := br.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, ok := active.Next(ctx); !ok {
				return
			}
		}
	}()
	b.ResetTimer()
	for i := range b.N {
		br.Publish(&session.AssistantDelta{Turn: i})
	}
	b.StopTimer()
	br.Close()
}
