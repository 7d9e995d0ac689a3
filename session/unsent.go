package session

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/ollama/ollama/api"
)

// The user's message joins the conversation only once Ollama takes it:
// from Send until the first line of the reply (or an error that is not a
// refusal of the request), it is the session's unsent message, sent with
// every request but not in the history and not logged as a message. So a
// message Ollama refuses (too long for the context, a think level it does
// not take) is never kept for the next request, nor for a resume; the turn ends saying so
// (TurnDone.Unsent), and the screen gives it back to the input.

// conversationLocked is the conversation the next request sends: the
// history, then the unsent message if any. Callers hold mu.
func (s *Session) conversationLocked() []api.Message {
	return s.withUnsentLocked(s.modelHistoryLocked()) // compact.go
}

// withUnsentLocked is h, then the unsent message if any (h is not
// changed). Callers hold mu.
func (s *Session) withUnsentLocked(h []api.Message) []api.Message {
	if s.unsent == nil {
		return h
	}
	return append(slices.Clip(h), *s.unsent)
}

// takeUnsent adds the unsent message, if any, to the history: Ollama took
// it.
func (s *Session) takeUnsent(turn int) {
	s.mu.Lock()
	m := s.unsent
	s.unsent = nil
	s.mu.Unlock()
	if m != nil {
		s.appendHistory(turn, *m)
	}
}

// dropUnsent forgets the unsent message, reporting whether there was one:
// Ollama refused it.
func (s *Session) dropUnsent() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	had := s.unsent != nil
	s.unsent = nil
	return had
}

// settleUnsent decides the unsent message once a request is over: dropped
// when Ollama refused the request (400: the prompt too long for the
// context, a think level it does not take, …) or the connection failed
// (Ollama not running, or killed) before any reply came, otherwise taken. It reports whether it was dropped.
func (s *Session) settleUnsent(turn int, r round) bool {
	var se api.StatusError
	var ue *url.Error
	if r.err != nil && !r.cancelled && !r.started() && (errors.As(r.err, &se) && se.StatusCode == http.StatusBadRequest ||
		errors.As(r.err, &ue)) { // Ollama not running, or gone before a word: nothing answered
		return s.dropUnsent()
	}
	s.takeUnsent(turn)
	return false
}
