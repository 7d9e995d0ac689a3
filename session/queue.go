package session

import (
	"context"
	"sync"
	"time"
)

// Broker fans events out to subscribers. Publishing never blocks: each
// subscriber has an unbounded queue, so a slow reader (a busy UI) cannot slow
// the Ollama stream reader. Memory is bounded by what one turn produces,
// since a reader takes everything queued at once.
type Broker struct {
	mu   sync.Mutex
	subs []*Sub
}

// Sub is one subscriber's queue.
type Sub struct {
	mu     sync.Mutex
	items  []Event
	wake   chan struct{} // holds a token while items is non-empty
	closed bool
}

// Subscribe adds a subscriber that gets every event published from now on.
func (b *Broker) Subscribe() *Sub {
	s := &Sub{wake: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	return s
}

// Publish delivers e to every subscriber.
func (b *Broker) Publish(e Event) {
	b.mu.Lock()
	subs := b.subs
	b.mu.Unlock()
	for _, s := range subs {
		s.push(e)
	}
}

// Close ends every subscription: Next returns what is left, then false.
func (b *Broker) Close() {
	b.mu.Lock()
	subs := b.subs
	b.subs = nil
	b.mu.Unlock()
	for _, s := range subs {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

func (s *Sub) push(e Event) {
	s.mu.Lock()
	s.items = append(s.items, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Next waits for events and returns all that are queued, oldest first. It
// returns false when the broker closed and nothing is left, or ctx ended.
func (s *Sub) Next(ctx context.Context) ([]Event, bool) {
	for {
		s.mu.Lock()
		if len(s.items) > 0 {
			items := s.items
			s.items = nil
			s.mu.Unlock()
			return items, true
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return nil, false
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// NextPaced is Next for a reader that shows events at a frame rate (the
// UI): it first waits until interval has passed since last, the time of the
// previous batch, so that a fast stream arrives in one batch per frame and
// publishing rarely has to wake the reader.
func (s *Sub) NextPaced(ctx context.Context, last time.Time, interval time.Duration) ([]Event, bool) {
	if wait := interval - time.Since(last); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, false
		}
	}
	return s.Next(ctx)
}
