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
	// A paced reader's (NextPaced): due is when its next batch is due,
	// urgent says items holds an event other than streamed text, and
	// late is the timer that wakes it when no push after due does.
	due    time.Time
	urgent bool
	late   *time.Timer
}

// pushSlack is how long after its due time a paced reader waits for a
// push of streamed text to wake it, before its timer does: longer than
// the chat stream's read pace (chatReadEvery), so that while a reply
// streams the reader's own push wakes it, in the same wake-up as the
// read, and the timer never fires.
const pushSlack = chatReadEvery + 4*time.Millisecond

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

// push queues e and wakes the reader, but a paced reader only once its
// batch is due: before then, the first event queued sets its timer (to
// due, for an event other than streamed text; pushSlack later for text,
// which a later push after due will likely deliver first).
func (s *Sub) push(e Event) {
	s.mu.Lock()
	s.items = append(s.items, e)
	text := isStreamedText(e)
	s.urgent = s.urgent || !text
	wake := true
	if !s.due.IsZero() {
		if now := time.Now(); now.Before(s.due) {
			wake = false
			switch {
			case !text:
				s.setLate(s.due.Sub(now))
			case len(s.items) == 1:
				s.setLate(s.due.Sub(now) + pushSlack)
			}
		}
	}
	s.mu.Unlock()
	if wake {
		s.signal()
	}
}

// isStreamedText says e is a piece of streamed text, which a paced
// reader may get a little later than due.
func isStreamedText(e Event) bool {
	switch e.(type) {
	case *AssistantDelta, *ThinkingDelta, *CompactionDelta:
		return true
	}
	return false
}

// setLate sets the paced reader's timer to wake it after d. s.mu is held.
func (s *Sub) setLate(d time.Duration) {
	if s.late == nil {
		s.late = time.AfterFunc(d, s.signal)
		return
	}
	s.late.Reset(d)
}

func (s *Sub) signal() {
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
// UI): it returns no sooner than interval after last, the time of the
// previous batch, so that a fast stream arrives in one batch per frame.
//
// It does not wake on a timer of its own while events stream in: the
// first push at or after the due time wakes it (the chat stream's read,
// which pushes every 16 ms), so that the stream's reads and the frames
// share their wake-ups; a timer wakes it only when no such push comes in
// time (push). An event other than streamed text (the end of a turn, a
// tool call) is delivered when due, as a timer would; streamed text at
// most pushSlack later, while the stream pauses.
func (s *Sub) NextPaced(ctx context.Context, last time.Time, interval time.Duration) ([]Event, bool) {
	due := last.Add(interval)
	for {
		s.mu.Lock()
		now := time.Now()
		if len(s.items) > 0 && (s.closed || !now.Before(due)) {
			items := s.items
			s.items, s.due, s.urgent = nil, time.Time{}, false
			if s.late != nil {
				s.late.Stop()
			}
			s.mu.Unlock()
			return items, true
		}
		if s.closed {
			s.mu.Unlock()
			return nil, false
		}
		s.due = due
		if len(s.items) > 0 {
			// Queued before due was set: the timer, as push would.
			wait := due.Sub(now)
			if !s.urgent {
				wait += pushSlack
			}
			s.setLate(wait)
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-ctx.Done():
			s.mu.Lock()
			s.due = time.Time{}
			if s.late != nil {
				s.late.Stop()
			}
			s.mu.Unlock()
			return nil, false
		}
	}
}
