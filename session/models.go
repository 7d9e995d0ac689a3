package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"
)

// ModelInfo describes an installed model.
type ModelInfo struct {
	Name          string
	Size          int64 // bytes on disk
	Family        string
	ParameterSize string
	Quantization  string
	Capabilities  []string // "completion", "tools", "thinking", "vision", "audio", ...: /api/tags (v0.32) or /api/show
	ContextLength int
	// ShowErr, when set, says why /api/show failed for the model: its
	// capabilities (and context length) are unknown, not absent, and Tools
	// and Thinking report false only for want of knowing. A model that
	// /api/tags lists but whose blob is missing is one such.
	ShowErr string
}

// CapsKnown reports whether the capabilities came from /api/show.
func (m ModelInfo) CapsKnown() bool { return m.ShowErr == "" }

// Tools reports whether the model can call tools.
func (m ModelInfo) Tools() bool { return slices.Contains(m.Capabilities, "tools") }

// Thinking reports whether the model can think.
func (m ModelInfo) Thinking() bool { return slices.Contains(m.Capabilities, "thinking") }

// Models lists the installed models, with their capabilities, sorted by
// name: from /api/tags where it lists them (Ollama v0.32), else from
// /api/show, once per model. Capabilities latch does not know (e.g.
// "audio") are kept and shown.
func (s *Session) Models(ctx context.Context) ([]ModelInfo, error) {
	list, err := s.listModels(ctx)
	if err != nil {
		return nil, s.wrap(err, "")
	}
	out := make([]ModelInfo, 0, len(list))
	for _, m := range list {
		info := ModelInfo{
			Name: m.Name, Size: m.Size, Family: m.Details.Family,
			ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel,
			Capabilities: m.Capabilities, ContextLength: m.Details.ContextLength,
		}
		if len(info.Capabilities) == 0 {
			show, err := s.client.Show(ctx, &api.ShowRequest{Model: m.Name})
			if err != nil {
				info.ShowErr = s.showFailure(err, m.Name)
				out = append(out, info)
				continue
			}
			info.Capabilities = capStrings(show)
			info.ContextLength = contextLength(show)
		}
		s.noteTrained(m.Name, info.ContextLength)
		s.mu.Lock()
		s.caps[m.Name] = info.Capabilities
		s.mu.Unlock()
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SetModel switches to the model called name, after checking with Ollama
// that it is installed. On failure the current model stays.
func (s *Session) SetModel(ctx context.Context, name string) (ModelInfo, error) {
	show, err := s.client.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return ModelInfo{}, s.wrap(err, name)
	}
	info := ModelInfo{
		Name: name, Family: show.Details.Family, ParameterSize: show.Details.ParameterSize,
		Quantization: show.Details.QuantizationLevel, Capabilities: capStrings(show),
		ContextLength: contextLength(show),
	}
	s.noteTrained(name, info.ContextLength)
	s.mu.Lock()
	s.model = name
	s.caps[name] = info.Capabilities
	s.mu.Unlock()
	s.publish(&ModelChanged{Header: s.header(TypeModelChanged), Model: name})
	return info, nil
}

// Probe learns the current model's capabilities (for think) without
// switching. A failure is returned described; the model stays set so the
// first turn reports the problem in context.
func (s *Session) Probe(ctx context.Context) (ModelInfo, error) {
	name := s.Model()
	if name == "" {
		return ModelInfo{}, ErrNoModel
	}
	show, err := s.client.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return ModelInfo{Name: name, ShowErr: s.showFailure(err, name)}, s.wrap(err, name)
	}
	caps := capStrings(show)
	s.noteTrained(name, contextLength(show))
	s.mu.Lock()
	s.caps[name] = caps
	s.mu.Unlock()
	return ModelInfo{Name: name, Capabilities: caps, Family: show.Details.Family,
		ParameterSize: show.Details.ParameterSize, ContextLength: contextLength(show)}, nil
}

func capStrings(show *api.ShowResponse) []string {
	out := make([]string, len(show.Capabilities))
	for i, c := range show.Capabilities {
		out[i] = string(c)
	}
	return out
}

func contextLength(show *api.ShowResponse) int {
	for k, v := range show.ModelInfo {
		if len(k) > len(".context_length") && k[len(k)-len(".context_length"):] == ".context_length" {
			if f, ok := v.(float64); ok {
				return int(f)
			}
		}
	}
	return 0
}

// showFailure says, in one line for the user, why /api/show failed for an
// installed model. Ollama v0.17.4 answers 404 "model 'NAME' not found" for a
// model that /api/tags lists but whose model blob is missing (the manifest
// is there, the weights are not: an interrupted pull, a pruned blob), and
// 500 for a blob it cannot read.
func (s *Session) showFailure(err error, name string) string {
	var se api.StatusError
	if errors.As(err, &se) && se.StatusCode == 404 && strings.Contains(se.ErrorMessage, "not found") {
		return fmt.Sprintf("/api/show failed (404 %s): Ollama lists the model but cannot read it, its files may be missing; `ollama pull %s` fetches them again",
			strings.TrimSpace(se.ErrorMessage), name)
	}
	return "/api/show failed: " + s.describe(err, name)
}

// UserError is an error whose text is written for the user.
type UserError struct {
	Msg string
	Err error // what it is, for errors.Is (ErrModelNotFound), or nil
}

func (e *UserError) Error() string { return e.Msg }

// Unwrap is what the error is, if said (Err).
func (e *UserError) Unwrap() error { return e.Err }

func (s *Session) wrap(err error, model string) error {
	ue := &UserError{Msg: s.describe(err, model)}
	if modelMissing(err, model) {
		ue.Err = ErrModelNotFound
	}
	return ue
}
