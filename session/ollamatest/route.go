package ollamatest

import (
	"strings"

	"github.com/ollama/ollama/api"
)

// route answers the requests match picks with a turn of its own.
type route struct {
	match func(*api.ChatRequest) bool
	turn  Turn
}

// Answer makes every /api/chat request match picks be answered with t,
// before the queue and the default, which such requests leave alone (a
// client's side requests, such as latch's summary for a compaction, are
// then answered apart from the conversation's script). The newest route
// that picks a request answers it.
func (s *Server) Answer(match func(req *api.ChatRequest) bool, t Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes = append(s.routes, route{match: match, turn: t})
}

// LastUserHas picks the requests whose last user message contains text.
func LastUserHas(text string) func(*api.ChatRequest) bool {
	return func(req *api.ChatRequest) bool {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == "user" {
				return strings.Contains(req.Messages[i].Content, text)
			}
		}
		return false
	}
}

// turnFor is the turn that answers req: a route's, else the next of
// the queue (or the default).
func (s *Server) turnFor(req *api.ChatRequest) Turn {
	s.mu.Lock()
	for i := len(s.routes) - 1; i >= 0; i-- {
		if r := s.routes[i]; r.match(req) {
			s.mu.Unlock()
			return r.turn
		}
	}
	s.mu.Unlock()
	return s.nextTurn()
}
