package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// sessions are the 2025-era streamable-HTTP sessions the gateway issued
// and that have not ended: a request naming any other session id gets
// 404, as the spec asks, and its client starts a new session. (mcp-go's
// default serves any well-formed id, one never issued or ended too; its
// stateful manager remembers every ended id for ever.) The 2026-07-28
// stateless form has no sessions and does not come here.
//
// A client need not end its session (DELETE), so the gateway ends those
// idle for Limits.SessionIdle, and keeps at most Limits.Sessions: a new
// session past that ends the idlest one. Ending one is cheap for its
// client: its next request gets 404 and it starts a new session, and its
// parked calls, known by their invocation ids, wait on.
type sessions struct {
	max  int
	idle time.Duration
	// end drops what mcp-go holds for an ended session (endSession).
	end func(id string)
	// capped and idled are what a client of a session ended for the cap,
	// or for idling, is told.
	capped, idled string

	mu   sync.Mutex
	live map[string]*liveSession
	// ended says why the latest sessions the gateway ended itself
	// ended (at most maxGone), for their clients' next request.
	ended ring
}

// liveSession is a session's last request, and its requests under way
// (a stream held open keeps it busy: it is not idle).
type liveSession struct {
	last time.Time
	busy int
	// owner is the client whose token the session's first request after
	// its initialize carried ("" for the shared token); owned once set.
	// Another client's token is refused the session.
	owner string
	owned bool
}

func newSessions(l Limits) *sessions {
	return &sessions{max: l.Sessions, idle: l.SessionIdle, end: func(string) {}, live: map[string]*liveSession{},
		capped: fmt.Sprintf("Not Found: latch serve ended this session: it was the idlest when a new one "+
			"passed the %d sessions it keeps (serve.http_sessions_max); initialize a new session", l.Sessions),
		idled: fmt.Sprintf("Not Found: latch serve ended this session: no request for %s "+
			"(serve.http_session_idle); initialize a new session", l.SessionIdle)}
}

// Generate issues a new session id (its initialize under way: busy until
// track sees it answered), ending the idlest session when max are live.
func (s *sessions) Generate() string {
	id := "mcp-session-" + rand.Text()
	now := time.Now()
	var ended []string
	s.mu.Lock()
	for len(s.live) >= s.max {
		old := s.idlest()
		delete(s.live, old)
		s.ended.put(old, s.capped)
		ended = append(ended, old)
	}
	s.live[id] = &liveSession{last: now, busy: 1}
	s.mu.Unlock()
	for _, old := range ended {
		s.end(old)
	}
	return id
}

// idlest is the live session whose last request is the oldest, one with
// none under way if any. The caller holds s.mu.
func (s *sessions) idlest() string {
	var pick string
	var at *liveSession
	for id, l := range s.live {
		better := at == nil
		if !better {
			free, atFree := l.busy == 0, at.busy == 0
			better = free && !atFree || free == atFree && l.last.Before(at.last)
		}
		if better {
			pick, at = id, l
		}
	}
	return pick
}

// Validate refuses an id that is not a live session (404).
func (s *sessions) Validate(id string) (terminated bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live[id] == nil {
		return false, errors.New("no such session")
	}
	return false, nil
}

// Terminate ends a session.
func (s *sessions) Terminate(id string) (notAllowed bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, id)
	return false, nil
}

// track notes each request of a session, from its start to its end, so
// that a session is idle from its last request's end; and the end of the
// initialize that issued one.
func (s *sessions) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(server.HeaderKeySessionID)
		if id != "" {
			caller, _ := r.Context().Value(callerKey{}).(string)
			live, why := s.enter(id, caller)
			if why != "" {
				http.Error(w, why, http.StatusNotFound)
				return
			}
			if live {
				defer s.leave(id)
			}
		}
		next.ServeHTTP(w, r)
		// An initialize (with a session's id or none) issued a session.
		if issued := w.Header().Get(server.HeaderKeySessionID); issued != "" && issued != id {
			s.leave(issued)
		}
	})
}

// enter notes a request of session id under way, by the client caller
// (the name its token gave; "" for the shared token); false when id is
// not live, with why when the gateway ended it or it is another client's.
func (s *sessions) enter(id, caller string) (live bool, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.live[id]
	if l == nil {
		return false, s.ended.get(id)
	}
	if !l.owned {
		l.owner, l.owned = caller, true
	}
	if l.owner != caller {
		return false, "Not Found: no such session for this token; initialize a new session"
	}
	l.busy++
	l.last = time.Now()
	return true, ""
}

// leave notes the end of a request of session id.
func (s *sessions) leave(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.live[id]; l != nil && l.busy > 0 {
		l.busy--
		l.last = time.Now()
	}
}

// sweep ends the sessions idle (no request under way) for longer than
// idle.
func (s *sessions) sweep(now time.Time) {
	var ended []string
	s.mu.Lock()
	for id, l := range s.live {
		if l.busy == 0 && now.Sub(l.last) > s.idle {
			delete(s.live, id)
			s.ended.put(id, s.idled)
			ended = append(ended, id)
		}
	}
	s.mu.Unlock()
	for _, id := range ended {
		s.end(id)
	}
}

// sweepEvery sweeps, a few times per idle period, until ctx ends.
func (s *sessions) sweepEvery(ctx context.Context) {
	t := time.NewTicker(min(max(s.idle/4, 50*time.Millisecond), time.Minute))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.sweep(now)
		}
	}
}

// endSession is what ends a session in mcp-go: a DELETE of it, as its
// client would send, which drops mcp-go's state for it (and tells the
// gateway's hooks the client went).
func endSession(h http.Handler) func(id string) {
	return func(id string) {
		r, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, Path, nil)
		if err != nil {
			return
		}
		r.Header.Set(server.HeaderKeySessionID, id)
		h.ServeHTTP(&recorder{header: http.Header{}}, r)
	}
}

// ring remembers what was said of the latest maxGone ids.
type ring struct {
	said map[string]string
	ids  []string
	at   int // the next slot of ids to reuse
}

// put remembers why for id, forgetting the oldest past maxGone.
func (r *ring) put(id, why string) {
	if r.said == nil {
		r.said, r.ids = map[string]string{}, make([]string, maxGone)
	}
	delete(r.said, r.ids[r.at])
	r.ids[r.at] = id
	r.said[id] = why
	r.at = (r.at + 1) % maxGone
}

// get is what was said of id, or "".
func (r *ring) get(id string) string { return r.said[id] }
