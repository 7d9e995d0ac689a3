package ollamatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/ollama/ollama/api"
)

// The Ollama versions the fake answers as (see [NewAs]). Where the two
// differ for a chat client, the fake follows the one it was started as;
// each difference below names the version it was observed on and the
// place in Ollama's source that makes it.
const (
	// V0174 is Ollama v0.17.4, the version latch's api package is from
	// and the fake's default.
	V0174 = "0.17.4"
	// V03215 is Ollama v0.32.15, the newest release checked: it runs
	// llama.cpp's own llama-server as a separate program.
	V03215 = "0.32.15"
)

// Versions are the versions the fake can answer as, oldest first: a
// table for tests that must hold on every one.
var Versions = []string{V0174, V03215}

// Long-prompt refusals, as each version words them.
const (
	// ErrInputTooLong is v0.17.4's refusal of a prompt longer than the
	// context when the request says truncate:false
	// (runner/ollamarunner/runner.go, errorInputTooLong; observed).
	ErrInputTooLong = "the input length exceeds the context length"
	// ErrPromptTooLong is v0.32.15's refusal of a prompt longer than the
	// context when context shift is off (shift:false): observed, from
	// llm/llama_server.go, completionPromptForRequest.
	ErrPromptTooLong = "the prompt is longer than the context length currently available to the model; " +
		"shorten the prompt, adjust the context length in settings, or use a model with a longer context length"
)

// exceedsContext is v0.32.15's refusal of a prompt longer than the
// context when the request says truncate:false: Ollama passes the prompt
// whole to llama-server and returns its error body as the message. The
// shape is llama.cpp's exceed_context_size_error (tools/server, the
// "exceeds the available context size" check); the test servers' numbers
// come from a stand-in for llama-server (see docs/OLLAMA.md).
func exceedsContext(numCtx, prompt int) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": 400, "message": "the request exceeds the available context size, try increasing it",
		"n_ctx": numCtx, "n_prompt_tokens": prompt, "type": "exceed_context_size_error",
	}})
	return string(b)
}

// newer reports whether the fake answers as v0.32.15.
func (s *Server) newer() bool { return s.version == V03215 }

// fitPrompt is what the server does with a prompt of n tokens (last: the
// last message's, with the system messages) in a context of numCtx: the
// count the model sees, or a refusal (status 400 and the message).
//
// Both versions first drop whole old messages (server/prompt.go,
// chatPrompt) and then, when the rest is still too long, cut the prompt
// itself, unless the request said truncate:false. The fake leaves out
// the first step: a prompt that does not fit counts as cut (a fair stand-in:
// either way the model saw less than was sent).
//
//   - v0.17.4 keeps num_ctx tokens (observed: prompt_eval_count 256 with
//     num_ctx 256); truncate:false refuses with ErrInputTooLong.
//   - v0.32.15, when the last message alone does not fit, keeps num_keep
//     (+1 for BOS) and half of the rest, num_ctx − (num_ctx − num_keep)/2:
//     131 of num_ctx 256 (observed; llm/llama_server.go,
//     contextShiftPromptLimit), or with shift:false refuses with
//     ErrPromptTooLong (observed: a chat whose last message fits is
//     answered, its old messages dropped); truncate:false refuses with
//     llama-server's error (exceedsContext). The fake counts a prompt
//     whose last message fits as num_ctx − 1.
func (s *Server) fitPrompt(req *api.ChatRequest, opts api.Options, n, last, numCtx int) (int, int, string) {
	truncate := req.Truncate == nil || *req.Truncate
	shift := req.Shift == nil || *req.Shift
	switch {
	case !s.newer() && n <= numCtx, s.newer() && n < numCtx:
		return n, 0, ""
	case !truncate && s.newer():
		return 0, http.StatusBadRequest, exceedsContext(numCtx, n)
	case !truncate:
		return 0, http.StatusBadRequest, ErrInputTooLong
	case !s.newer():
		return numCtx, 0, ""
	case last < numCtx:
		return numCtx - 1, 0, "" // old messages dropped: what is left fits
	case !shift:
		return 0, http.StatusBadRequest, ErrPromptTooLong
	}
	keep := min(max(opts.NumKeep, 0)+1, numCtx-1) // +1: the BOS token
	return numCtx - max((numCtx-keep)/2, 1), 0, ""
}

// lastTokens is the count of the last message with the system messages:
// what is left of a prompt once every old message is dropped.
func lastTokens(req *api.ChatRequest) int {
	var keep []api.Message
	for i, m := range req.Messages {
		if m.Role == "system" || i == len(req.Messages)-1 {
			keep = append(keep, m)
		}
	}
	r := *req
	r.Messages = keep
	return promptTokens(&r)
}

// thinkLevels are the think values each version takes as a string
// (api/types.go, ThinkValue.UnmarshalJSON): v0.32.15 added "max".
func (s *Server) thinkLevels() []string {
	if s.newer() {
		return []string{"high", "medium", "low", "max"}
	}
	return []string{"high", "medium", "low"}
}

// parseThink reads a request's raw think field as the version's api
// package does, or says why not: its words are the 400's message.
func (s *Server) parseThink(raw json.RawMessage) (*api.ThinkValue, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return &api.ThinkValue{Value: b}, nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		if slices.Contains(s.thinkLevels(), str) {
			return &api.ThinkValue{Value: str}, nil
		}
		if s.newer() {
			return nil, fmt.Errorf("invalid think value: %q (must be \"high\", \"medium\", \"low\", \"max\", true, or false)", str)
		}
		return nil, fmt.Errorf("invalid think value: %q (must be \"high\", \"medium\", \"low\", true, or false)", str)
	}
	return nil, fmt.Errorf("think must be a boolean or string (\"high\", \"medium\", \"low\", true, or false)")
}

// chatBody is a chat request as it comes: its think field apart, read
// by the version's rules (parseThink) rather than the api package's.
type chatBody struct {
	api.ChatRequest
	Think json.RawMessage `json:"think,omitempty"`
}

// thinkLevelRefused says whether the version refuses a think level for
// the model: v0.17.4 takes levels only from models with the harmony parser
// (gpt-oss; server/routes.go, ChatHandler: "string values currently only
// allowed for harmony/gptoss models"), v0.32.15 from every model that can
// think (the check is gone; observed: tiny-think takes "low" … "max").
func (s *Server) thinkLevelRefused(e *entry, think *api.ThinkValue) bool {
	return think.IsString() && !e.ThinkLevels && !s.newer()
}

// tagsModel is a model as v0.32.15's /api/tags lists it: with its
// capabilities, and its trained context and embedding length in details
// (api/types.go ListModelResponse and ModelDetails; server/
// model_list_cache.go; observed: capabilities ["completion","tools"],
// context_length 8192, embedding_length 320 for the test model tiny).
// v0.17.4 lists neither.
type tagsModel struct {
	api.ListModelResponse
	Details      tagsDetails `json:"details"`
	Capabilities []string    `json:"capabilities,omitempty"`
}

type tagsDetails struct {
	api.ModelDetails
	ContextLength   int `json:"context_length,omitempty"`
	EmbeddingLength int `json:"embedding_length,omitempty"`
}

// tagsEntry is the model's /api/tags entry for the fake's version.
func (s *Server) tagsEntry(e *entry) any {
	m := api.ListModelResponse{Name: e.short, Model: e.short, ModifiedAt: s.mtime, Size: e.Size, Digest: e.digest, Details: e.details()}
	if !s.newer() || e.MissingBlob {
		return m
	}
	d := tagsDetails{ModelDetails: m.Details, ContextLength: e.ContextLength, EmbeddingLength: 4096}
	return tagsModel{ListModelResponse: m, Details: d, Capabilities: slices.Clone(e.Capabilities)}
}

// thinkOn reports whether a think value asks for thinking: true or any
// level (api v0.17.4's Bool knows no "max").
func thinkOn(t *api.ThinkValue) bool {
	if t.IsString() {
		return t.String() != ""
	}
	return t.Bool()
}
