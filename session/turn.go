package session

import (
	"context"
	"errors"
	"strings"

	"github.com/ollama/ollama/api"
)

// runTurn streams one reply and publishes it. It always ends with a
// TurnDone event, whatever happens; a failure is also an Error event.
func (s *Session) runTurn(ctx context.Context, turn int, done chan struct{}) {
	defer close(done)
	req := s.request(ctx)
	var content, thinking strings.Builder
	var last api.ChatResponse
	err := s.client.Chat(ctx, req, func(r api.ChatResponse) error {
		last = r
		if t := r.Message.Thinking; t != "" {
			thinking.WriteString(t)
			s.publish(&ThinkingDelta{Header: s.header(TypeThinkingDelta), Turn: turn, Text: t})
		}
		if c := r.Message.Content; c != "" {
			content.WriteString(c)
			s.publish(&AssistantDelta{Header: s.header(TypeAssistantDelta), Turn: turn, Text: c})
		}
		return nil
	})
	// The client returns nil when the stream is cut or the context is
	// cancelled after the headers arrived (API-BRIEF §3.3): check both.
	cancelled := ctx.Err() != nil && !last.Done // a cancel after the last line changes nothing
	if err == nil && !cancelled && !last.Done {
		err = ErrCutOff
	}
	if cancelled {
		err = nil
	}

	reason := ReasonStop
	switch {
	case cancelled:
		reason = ReasonCancelled
	case errors.Is(err, ErrCutOff):
		reason = ReasonCutOff
	case err != nil:
		reason = ReasonError
	case last.DoneReason == "length":
		reason = ReasonLength
	}

	s.mu.Lock()
	model := s.model
	if content.Len() > 0 || thinking.Len() > 0 {
		s.history = append(s.history, api.Message{Role: "assistant", Content: content.String(), Thinking: thinking.String()})
	}
	s.mu.Unlock()

	if content.Len() > 0 || thinking.Len() > 0 {
		s.publish(&AssistantMessage{
			Header: s.header(TypeAssistantMessage), Turn: turn,
			Content: content.String(), Thinking: thinking.String(),
			Partial: reason != ReasonStop && reason != ReasonLength,
		})
	}
	if err != nil {
		s.publish(&Error{Header: s.header(TypeError), Turn: turn, Message: s.describe(err, model)})
	}
	m := last.Metrics
	s.mu.Lock()
	s.cancel = nil
	s.mu.Unlock()
	s.publish(&TurnDone{Header: s.header(TypeTurnDone), Turn: turn, Reason: reason, Metrics: Metrics{
		PromptTokens: m.PromptEvalCount, EvalTokens: m.EvalCount, EvalDuration: m.EvalDuration,
		TotalDuration: m.TotalDuration, LoadDuration: m.LoadDuration, PromptDuration: m.PromptEvalDuration,
	}})
}
