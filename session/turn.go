package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
)

// DefaultMaxToolRounds is how many rounds of tool calls one turn may take.
const DefaultMaxToolRounds = 25

// round is what one streamed reply of the model brought.
type round struct {
	content, thinking string
	calls             []api.ToolCall
	last              api.ChatResponse
	err               error
	cancelled         bool
}

// runTurn streams the model's reply; while the model asks for tools, it
// runs them through the gate and streams again. It always ends with a
// TurnDone event, whatever happens; a failure is also an Error event.
// pending are tool calls of the last reply still to answer (a resumed
// turn); they are taken first.
func (s *Session) runTurn(ctx context.Context, turn int, done chan struct{}, pending []api.ToolCall) {
	defer close(done)
	var (
		reason  = ReasonStop
		metrics Metrics
		model   = s.Model()
	)
	for _, call := range pending {
		m := s.runToolCall(ctx, turn, call)
		if m.Role == "" {
			break // closing while it waits for approval: it stays owed
		}
		s.appendHistory(turn, m)
	}
	for n := 0; ; n++ {
		if ctx.Err() != nil {
			reason = ReasonCancelled
			break
		}
		r := s.stream(ctx, turn, n)
		metrics = metricsOf(r.last)
		switch {
		case r.cancelled:
			reason = ReasonCancelled
		case errors.Is(r.err, ErrCutOff):
			reason = ReasonCutOff
		case r.err != nil:
			reason = ReasonError
		case r.last.DoneReason == "length":
			reason = ReasonLength
		}
		if r.err != nil {
			s.publish(&Error{Header: s.header(TypeError), Turn: turn, Message: s.describe(r.err, model)})
		}
		if r.cancelled || r.err != nil || len(r.calls) == 0 {
			break
		}
		if n >= s.maxRounds {
			reason = ReasonToolLimit
			// The model's last calls get an answer, so the conversation
			// stays well formed for the next turn.
			for _, call := range r.calls {
				s.appendHistory(turn, api.Message{Role: "tool", ToolName: call.Function.Name, ToolCallID: call.ID,
					Content: errorJSON(fmt.Sprintf("not run: the limit of %d rounds of tool calls in one turn was reached", s.maxRounds))})
			}
			s.publish(&Error{Header: s.header(TypeError), Turn: turn, Message: fmt.Sprintf(
				"stopped after %d rounds of tool calls in one turn (the limit); send a message to let the model go on", s.maxRounds)})
			break
		}
		for _, call := range r.calls {
			m := s.runToolCall(ctx, turn, call)
			if m.Role == "" {
				break // closing while it waits for approval: it and the rest stay owed
			}
			s.appendHistory(turn, m)
		}
		if ctx.Err() != nil {
			reason = ReasonCancelled
			break
		}
	}
	s.mu.Lock()
	s.cancel = nil
	s.mu.Unlock()
	s.publish(&TurnDone{Header: s.header(TypeTurnDone), Turn: turn, Reason: reason, Metrics: metrics})
}

func metricsOf(r api.ChatResponse) Metrics {
	m := r.Metrics
	return Metrics{
		PromptTokens: m.PromptEvalCount, EvalTokens: m.EvalCount, EvalDuration: m.EvalDuration,
		TotalDuration: m.TotalDuration, LoadDuration: m.LoadDuration, PromptDuration: m.PromptEvalDuration,
	}
}

// stream runs one chat request and publishes its deltas. The assistant's
// message (with any tool calls) is added to the history.
func (s *Session) stream(ctx context.Context, turn, n int) round {
	req := s.request(ctx)
	r := s.chat(ctx, turn, n, req)
	if r.err != nil && len(req.Tools) > 0 && !r.cancelled && r.content == "" && isNoToolsError(r.err) {
		// The model cannot use tools: say so once, and go on without them.
		s.mu.Lock()
		s.noTools[req.Model] = true
		s.mu.Unlock()
		s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
			"model %s does not support tools: chatting without the MCP tools (pick a model with tools support for them; /models shows which)", req.Model)})
		req.Tools = nil
		r = s.chat(ctx, turn, n, req)
	}
	if r.content != "" || r.thinking != "" || len(r.calls) > 0 {
		s.appendHistory(turn, api.Message{Role: "assistant", Content: r.content, Thinking: r.thinking, ToolCalls: r.calls})
	}
	if r.content != "" || r.thinking != "" {
		partial := r.cancelled || r.err != nil
		s.publish(&AssistantMessage{Header: s.header(TypeAssistantMessage), Turn: turn, Round: n,
			Content: r.content, Thinking: r.thinking, Partial: partial})
	}
	return r
}

func (s *Session) chat(ctx context.Context, turn, n int, req *api.ChatRequest) round {
	var content, thinking strings.Builder
	var r round
	err := s.client.Chat(ctx, req, func(resp api.ChatResponse) error {
		r.last = resp
		if t := resp.Message.Thinking; t != "" {
			thinking.WriteString(t)
			s.publish(&ThinkingDelta{Header: s.header(TypeThinkingDelta), Turn: turn, Round: n, Text: t})
		}
		if c := resp.Message.Content; c != "" {
			content.WriteString(c)
			s.publish(&AssistantDelta{Header: s.header(TypeAssistantDelta), Turn: turn, Round: n, Text: c})
		}
		r.calls = append(r.calls, resp.Message.ToolCalls...)
		return nil
	})
	// The client returns nil when the stream is cut or the context is
	// cancelled after the headers arrived (API-BRIEF §3.3): check both. A
	// cancel after the last line changes nothing.
	r.cancelled = ctx.Err() != nil && !r.last.Done
	if err == nil && !r.cancelled && !r.last.Done {
		err = ErrCutOff
	}
	if r.cancelled {
		err = nil
	}
	r.err = err
	r.content, r.thinking = content.String(), thinking.String()
	return r
}

func isNoToolsError(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == 400 && strings.Contains(se.ErrorMessage, "does not support tools")
}
