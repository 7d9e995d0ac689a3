package session

import (
	"context"
	"testing"
	"time"
)

// TestWaitServersPublished: once WaitServers returns, every server's
// server_status for its current state is already published, so that what
// the caller publishes next (-p's user_message) comes after it.
func TestWaitServersPublished(t *testing.T) {
	for range 20 {
		s := New(Options{Model: "qwen3:8b", Servers: benchServers()})
		sub := s.Subscribe()
		s.StartServers()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s.WaitServers(ctx)
		cancel()
		s.publish(&Error{Header: s.header(TypeError), Message: "next"})
		var states []string
		next := false
		for !next {
			evs, ok := sub.Next(context.Background())
			if !ok {
				t.Fatal("the events ended")
			}
			for _, e := range evs {
				switch e := e.(type) {
				case *ServerStatusEvent:
					states = append(states, e.State)
				case *Error:
					next = true
				}
			}
		}
		if len(states) == 0 || states[len(states)-1] != "connected" {
			t.Fatalf("server_status before the next event: %v, want it to end with connected", states)
		}
		s.Close()
	}
}

// TestWaitServersWaitsForTheEvent: a server whose latest state is not
// published yet (the manager has changed it, the session has not shown it)
// keeps WaitServers waiting.
func TestWaitServersWaitsForTheEvent(t *testing.T) {
	s := New(Options{Model: "qwen3:8b", Servers: benchServers()})
	defer s.Close()
	s.StartServers()
	waitToolNamed(t, s, "bench__echo")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s.WaitServers(ctx)
	cancel()

	s.mu.Lock()
	s.statusShown["bench"] = s.statusShown["bench"].Add(-time.Second) // as if the event were on its way
	s.mu.Unlock()
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	s.WaitServers(ctx)
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Fatalf("WaitServers returned after %v with the server's state unpublished", waited)
	}
}
