package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"latch/session/exactjson"
)

// DefaultMaxToolRounds is how many rounds of tool calls one turn may take.
const DefaultMaxToolRounds = 25

// round is what one streamed reply of the model brought.
type round struct {
	content, thinking string
	calls             []api.ToolCall
	last              api.ChatResponse
	req               *api.ChatRequest // the request as sent (its last try)
	err               error
	cancelled         bool
	unsent            bool // the user's message was refused, not kept (unsent.go)
}

// started reports whether any of the reply arrived.
func (r round) started() bool { return r.content != "" || r.thinking != "" || len(r.calls) > 0 }

// cutOff reports whether the reply began but broke before its final line:
// the connection closed (ErrCutOff), or Ollama ended the 200 stream with an
// {"error":…} line, as it does when the model runner dies in mid-reply
// ("an error was encountered while running the model: unexpected EOF").
// Either way what arrived is a part of a reply, not an answer.
func (r round) cutOff() bool {
	return !r.cancelled && r.err != nil && (errors.Is(r.err, ErrCutOff) || r.started())
}

// runTurn streams the model's reply; while the model asks for tools, it
// runs them through the gate and streams again. It always ends with a
// TurnDone event, whatever happens; a failure is also an Error event.
// pending are tool calls of the last reply still to answer (a resumed
// turn); they are taken first.
func (s *Session) runTurn(ctx context.Context, turn int, done chan struct{}, pending []api.ToolCall) {
	defer close(done)
	var (
		reason      = ReasonStop
		metrics     Metrics
		model       = s.Model()
		unsent      bool
		tooLongSent bool
	)
	s.runCalls(ctx, turn, pending)
	for n := 0; ; n++ {
		if ctx.Err() != nil {
			reason = ReasonCancelled
			break
		}
		r := s.stream(ctx, turn, n)
		metrics = metricsOf(r.last)
		s.noteReply(turn, r)
		reason = r.endReason(reason)
		unsent, tooLongSent = r.unsent, r.unsent && tooLong(r.err)
		if r.err != nil {
			s.publish(&Error{Header: s.header(TypeError), Turn: turn, Message: s.describeChat(turn, r, model)})
		}
		if r.cancelled || r.err != nil || len(r.calls) == 0 {
			break
		}
		if n >= s.maxRounds {
			reason = ReasonToolLimit
			s.refuseOverLimit(turn, r.calls)
			break
		}
		s.runCalls(ctx, turn, r.calls)
	}
	s.mu.Lock()
	s.cancel = nil
	s.mu.Unlock()
	s.publish(&TurnDone{Header: s.header(TypeTurnDone), Turn: turn, Reason: reason, Metrics: metrics, Unsent: unsent, TooLong: tooLongSent})
}

// endReason is why the turn ends with this reply, or prev when the reply
// itself says nothing of it (it finished well).
func (r round) endReason(prev string) string {
	switch {
	case r.cancelled:
		return ReasonCancelled
	case r.cutOff():
		return ReasonCutOff
	case r.err != nil:
		return ReasonError
	case r.last.DoneReason == "length":
		return ReasonLength
	}
	return prev
}

// runCalls runs the calls of a reply in order, adding each answer to the
// history. It stops at a call that gets no answer (the session closes
// while it waits for approval): it and the rest stay owed.
func (s *Session) runCalls(ctx context.Context, turn int, calls []api.ToolCall) {
	for _, call := range calls {
		m, answered := s.runToolCall(ctx, turn, call)
		if !answered {
			return
		}
		s.appendHistory(turn, m)
	}
}

// refuseOverLimit answers the calls of a reply past the limit of rounds:
// they get an answer, so the conversation stays well formed for the next
// turn, and the user is told.
func (s *Session) refuseOverLimit(turn int, calls []api.ToolCall) {
	for _, call := range calls {
		s.fromTextCall(call.ID) // never published: drop its mark
		s.appendHistory(turn, api.Message{Role: "tool", ToolName: call.Function.Name, ToolCallID: call.ID,
			Content: errorJSON(fmt.Sprintf("not run: the limit of %d rounds of tool calls in one turn was reached", s.maxRounds))})
	}
	s.publish(&Error{Header: s.header(TypeError), Turn: turn, Message: fmt.Sprintf(
		"stopped after %d rounds of tool calls in one turn (the limit); send a message to let the model go on", s.maxRounds)})
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
//
// A finished reply without tool calls whose content is calls written as
// text (textcalls.go) is taken for those calls.
//
// A reply that did not finish is kept for the model without its tool calls:
// they were not run, and left in the history they would be calls without
// answers (and a resumed session would take them for calls it still owes,
// and run them). A cut-off reply's text is kept, since the user saw it and
// may ask the model to go on, but with a note that it broke off there (see
// cutOffNote): as it arrived it would read as the model's finished answer.
// A cancelled reply is kept as it is: the user stopped it, and says what
// next.
func (s *Session) stream(ctx context.Context, turn, n int) round {
	req := s.request(ctx)
	s.preflight(turn, req)
	r := s.chat(ctx, turn, n, req)
	if r.err != nil && len(req.Tools) > 0 && !r.cancelled && r.content == "" && isNoToolsError(r.err) {
		// The model cannot use tools: say so once, and go on without them.
		s.mu.Lock()
		s.noTools[req.Model] = true
		s.mu.Unlock()
		s.noteNoTools(req.Model)
		req.Tools = nil
		r = s.chat(ctx, turn, n, req)
	}
	r.req = req
	r.unsent = s.settleUnsent(turn, r)
	partial := r.cancelled || r.err != nil
	content, written := r.content, ""
	if calls, prose, ok := s.recoverTextCalls(req, r); ok {
		// Calls written as text: the model's copy of the reply carries
		// them as tool calls, as if it had made them properly, so that
		// the results that follow answer them; the screen shows their
		// cards in their place, and the prose around them.
		r.calls, content, written = calls, prose, r.content
	}
	switch {
	case !partial && r.started():
		s.appendHistory(turn, api.Message{Role: "assistant", Content: content, Thinking: r.thinking, ToolCalls: r.calls})
	case r.content == "" && r.thinking == "":
		// Nothing of an unfinished reply to keep (at most its calls).
	case r.cutOff():
		s.appendHistory(turn, api.Message{Role: "assistant", Content: withNote(r.content, cutOffNote(r.err)), Thinking: r.thinking})
	default:
		s.appendHistory(turn, api.Message{Role: "assistant", Content: r.content, Thinking: r.thinking})
	}
	if r.content != "" || r.thinking != "" {
		s.publish(&AssistantMessage{Header: s.header(TypeAssistantMessage), Turn: turn, Round: n,
			Content: content, Written: written, Thinking: r.thinking, Partial: partial})
	}
	return r
}

// cutOffNote ends the history's copy of a cut-off reply, so that the model,
// next turn, reads its reply as broken off rather than as a finished answer.
func cutOffNote(err error) string {
	why := "Ollama stopped it with an error"
	if errors.Is(err, ErrCutOff) {
		why = "the connection to Ollama closed"
	}
	return "[cut off: this reply was interrupted here, unfinished (" + why + ")]"
}

func withNote(content, note string) string {
	if content == "" {
		return note
	}
	return content + "\n\n" + note
}

func (s *Session) chat(ctx context.Context, turn, n int, req *api.ChatRequest) round {
	var content, thinking strings.Builder
	var r round
	took := false
	ctx, exact := exactjson.WithExactCalls(ctx)
	err := s.chatStream(ctx, req, func(resp api.ChatResponse) error {
		if !took {
			took = true
			s.takeUnsent(turn) // a reply comes: Ollama took the message
		}
		r.last = resp
		if t := resp.Message.Thinking; t != "" {
			thinking.WriteString(t)
			s.publish(&ThinkingDelta{Header: s.header(TypeThinkingDelta), Turn: turn, Round: n, Text: t})
		}
		if c := resp.Message.Content; c != "" {
			content.WriteString(c)
			s.publish(&AssistantDelta{Header: s.header(TypeAssistantDelta), Turn: turn, Round: n, Text: c})
		}
		exact.Fix(resp.Message.ToolCalls) // the numbers as the model wrote them
		r.calls = append(r.calls, resp.Message.ToolCalls...)
		return nil
	})
	// The client returns nil when the stream is cut or the context is
	// cancelled after the headers arrived (docs/OLLAMA.md, "Cancellation"): check both. A
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

// describeChat is describe for a chat request's error, with a hint where
// Ollama's own words mislead. A model whose blob is missing (an interrupted
// pull, a pruned blob; /api/tags still lists it) answers 400
// "\"NAME\" does not support chat", as an embedding-only model does.
func (s *Session) describeChat(turn int, r round, model string) string {
	err := r.err
	if tooLong(err) {
		return s.tooLongAdvice(turn, r)
	}
	msg := s.describe(err, model) + thinkRefusal(err)
	var se api.StatusError
	if errors.As(err, &se) && se.StatusCode == 400 && strings.Contains(se.ErrorMessage, "does not support chat") {
		msg += fmt.Sprintf(" (an embedding model cannot chat; for a chat model this means its files are missing or incomplete: `ollama pull %s` fetches them again)", model)
	}
	return msg
}

// noteNoTools says, once per model, that the model cannot use the
// connected servers' tools: learnt from its capabilities (a model picked
// with /model) or from Ollama's refusal. Nothing is said while no server
// has a tool to offer.
func (s *Session) noteNoTools(model string) {
	if len(s.servers.Tools()) == 0 {
		return
	}
	s.mu.Lock()
	said := s.toolless[model]
	s.toolless[model] = true
	s.mu.Unlock()
	if !said {
		s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
			"model %s does not support tools: chatting without the MCP tools (pick a model with tools support for them; /models shows which)", model)})
	}
}

func isNoToolsError(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == 400 && strings.Contains(se.ErrorMessage, "does not support tools")
}
