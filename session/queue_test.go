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

	published := make(chan time.Duration)
	go func() {
		start := time.Now()
		for i := range n {
			b.Publish(&session.AssistantDelta{Turn: i})
		}
		published <- time.Since(start)
	}()
	select {
	case d := <-published:
		// Generous: ~100ns per event unraced, a few µs under -race.
		if d > 5*time.Second {
			t.Errorf("publishing %d events took %v", n, d)
		}
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
