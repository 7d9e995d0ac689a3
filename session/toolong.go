package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"
)

// A prompt longer than the context. latch asks Ollama to refuse one
// (truncate:false, unless ollama.truncate is true) rather than cut the
// start of the conversation without a word, and each version refuses in
// its own words (docs/OLLAMA.md, "A prompt longer than the context"):
//
//   - v0.17.4, truncate:false: "the input length exceeds the context
//     length" (runner/ollamarunner/runner.go, errorInputTooLong);
//   - v0.32.15, truncate:false: llama-server's own error passed on as the
//     message, a JSON body of type "exceed_context_size_error" ("the
//     request exceeds the available context size, try increasing it");
//   - v0.32.15, context shift off (shift:false, or a model that cannot
//     shift): "the prompt is longer than the context length currently
//     available to the model; …" (llm/llama_server.go,
//     completionPromptForRequest).
//
// Every refusal says what to do, and a refused message is not kept
// (unsent.go).

// tooLongWords are the words of each refusal above.
var tooLongWords = []string{
	"the input length exceeds the context length",
	"the prompt is longer than the context length",
	"exceed_context_size_error",
	"exceeds the available context size",
}

// tooLong reports whether err is Ollama refusing a prompt that does not
// fit the context.
func tooLong(err error) bool {
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest {
		return false
	}
	for _, w := range tooLongWords {
		if strings.Contains(se.ErrorMessage, w) {
			return true
		}
	}
	return false
}

// ollamaWords is the message of Ollama's refusal, short: llama-server's
// JSON body read for its message and counts.
func ollamaWords(err error) (msg string, prompt, numCtx int) {
	var se api.StatusError
	if !errors.As(err, &se) {
		return "", 0, 0
	}
	msg = strings.TrimSpace(se.ErrorMessage)
	var body struct {
		Error struct {
			Message string `json:"message"`
			NCtx    int    `json:"n_ctx"`
			NPrompt int    `json:"n_prompt_tokens"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(msg), &body) == nil && body.Error.Message != "" {
		msg, prompt, numCtx = body.Error.Message, body.Error.NPrompt, body.Error.NCtx
	}
	return clipTo(msg, 200), prompt, numCtx
}

// tooLongAdvice says, for a request Ollama refused as too long, what was
// refused, how far over the context it is when that is known, and how to
// make room.
func (s *Session) tooLongAdvice(turn int, r round) string {
	req := r.req
	if req == nil {
		req = &api.ChatRequest{Model: s.Model()}
	}
	s.fetchLoaded(turn, req.Model) // the context it was refused in, when none is set
	words, prompt, serverCtx := ollamaWords(r.err)
	tools := estimateTools(req.Tools)
	est := estimateParts(req.Messages, tools)
	s.mu.Lock()
	numCtx, src := s.numCtxLocked(req.Model)
	s.mu.Unlock()
	numCtx = max(numCtx, serverCtx)
	size := ""
	switch {
	case prompt > 0:
		size = fmt.Sprintf(" (Ollama counted %d tokens)", prompt)
	case numCtx > 0 && est.Total() > numCtx:
		size = fmt.Sprintf(" (about %d tokens, estimated)", est.Total())
	}
	where := "the context"
	if numCtx > 0 {
		where = fmt.Sprintf("the context of %d (%s)", numCtx, ctxSource(src))
	}
	head := "Ollama refused this message: the conversation with it" + size + " does not fit " + where +
		". It was not sent, and it is not in the conversation. Make room, then send it again: "
	if !r.unsent {
		head = "Ollama refused to go on: the conversation" + size + " no longer fits " + where +
			". Make room, then send a message to go on: "
	}
	fix := roomFix(s.trainedMax(req.Model), numCtx, len(req.Tools), tools)
	if s.noOne {
		// -p: no slash commands, the config is the way.
		head = strings.Replace(head, "Make room, then send it again: ", "", 1)
		fix = promptFix(s.trainedMax(req.Model), numCtx, len(req.Tools), tools)
	}
	if r.unsent && numCtx > 0 && len(req.Messages) > 0 && estimateMessage(req.Messages[len(req.Messages)-1]) > numCtx {
		fix += "; or send a shorter message: this one alone is larger than the context"
	}
	return head + fix + ". (Ollama: " + words + ")"
}

// roomFix lists the ways to make room in a context that is full: compact
// the conversation, a larger context (up to the model's trained maximum,
// when it is larger), fewer tools (when some are offered), or start
// afresh.
func roomFix(trained, numCtx, nTools, toolTokens int) string {
	ways := []string{"/compact summarizes the older part of the conversation"}
	switch {
	case trained > 0 && numCtx >= trained:
		// Already the model's maximum: a larger context is no way out.
	case trained > 0:
		ways = append(ways, fmt.Sprintf("/context NUM sets a larger context for this session (up to %d for this model; "+
			"ollama.options.num_ctx in the config keeps it)", trained))
	default:
		ways = append(ways, "/context NUM sets a larger context for this session (ollama.options.num_ctx in the config keeps it)")
	}
	if nTools > 0 {
		ways = append(ways, fmt.Sprintf("fewer tools: the %d offered take about %d tokens (/tools NAME off, or a lower ollama.max_tools)",
			nTools, toolTokens))
	}
	ways = append(ways, "/clear starts afresh")
	return strings.Join(ways, "; ")
}

// promptFix is roomFix for -p, where no command can be typed: the
// config's num_ctx, fewer tools, or a shorter prompt.
func promptFix(trained, numCtx, nTools, toolTokens int) string {
	ways := []string{"To make room, set a larger ollama.options.num_ctx in the config"}
	if trained > 0 && numCtx >= trained {
		ways[0] = "The context is already this model's maximum"
	} else if trained > 0 {
		ways[0] += fmt.Sprintf(" (up to %d for this model)", trained)
	}
	if nTools > 0 {
		ways = append(ways, fmt.Sprintf("offer fewer tools (the %d offered take about %d tokens: a server's tools list, or a lower ollama.max_tools)",
			nTools, toolTokens))
	}
	return strings.Join(ways, "; ") + "; or send a shorter prompt"
}
