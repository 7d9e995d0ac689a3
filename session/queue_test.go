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

// A paced reader (the UI) gets a batch no sooner than its interval after
// the last, every event once and in order, and gets streamed text that no
// later push follows (a stream that paused), and the end of a turn, by
// its timer: nothing waits for a push that does not come.
func TestSubNextPacedDeliversEveryEventWhenDue(t *testing.T) {
	t.Parallel()
	cases := map[string][]session.Event{
		"text alone":       {&session.AssistantDelta{Text: "a"}},
		"text then done":   {&session.AssistantDelta{Text: "a"}, &session.TurnDone{Turn: 1}},
		"done alone":       {&session.TurnDone{Turn: 1}},
		"thinking, text":   {&session.ThinkingDelta{Text: "t"}, &session.AssistantDelta{Text: "a"}, &session.AssistantDelta{Text: "b"}},
		"error then text":  {&session.Error{Message: "x"}, &session.AssistantDelta{Text: "a"}},
		"text, late error": {&session.AssistantDelta{Text: "a"}, &session.AssistantDelta{Text: "b"}, &session.Error{Message: "x"}},
	}
	for name, events := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b session.Broker
			sub := b.Subscribe()
			ctx := bounded(t)
			const interval = 30 * time.Millisecond
			last := time.Now()
			got := make(chan []session.Event, 1)
			go func() {
				var out []session.Event
				for len(out) < len(events) {
					evs, ok := sub.NextPaced(ctx, last, interval)
					if !ok {
						break
					}
					if took := time.Since(last); took < interval {
						t.Errorf("a batch came %v after the last, before the interval (%v)", took, interval)
					}
					last = time.Now()
					out = append(out, evs...)
				}
				got <- out
			}()
			for _, e := range events {
				b.Publish(e)
			}
			out := <-got
			if kinds(out) != kinds(events) {
				t.Errorf("got %s, want %s", kinds(out), kinds(events))
			}
			if ctx.Err() != nil {
				t.Errorf("the reader waited until the test's bound for events published %v apart", interval)
			}
		})
	}
}

// A paced reader whose context ends stops waiting, and the subscription
// still delivers afterwards.
func TestSubNextPacedHonoursContext(t *testing.T) {
	t.Parallel()
	var b session.Broker
	sub := b.Subscribe()
	b.Publish(&session.AssistantDelta{Text: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if evs, ok := sub.NextPaced(ctx, time.Now(), time.Hour); ok {
		t.Errorf("NextPaced with its context over = %d events, true", len(evs))
	}
	if evs := drain(t, sub, 1); len(evs) != 1 {
		t.Errorf("got %s", kinds(evs))
	}
}
