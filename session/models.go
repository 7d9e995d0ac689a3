package session

import (
	"context"
	"slices"
	"sort"

	"github.com/ollama/ollama/api"
)

// ModelInfo describes an installed model.
type ModelInfo struct {
	Name          string
	Size          int64 // bytes on disk
	Family        string
	ParameterSize string
	Quantization  string
	Capabilities  []string // from /api/show: "completion", "tools", "thinking", "vision", ...
	ContextLength int
}

// Tools reports whether the model can call tools.
func (m ModelInfo) Tools() bool { return slices.Contains(m.Capabilities, "tools") }

// Thinking reports whether the model can think.
func (m ModelInfo) Thinking() bool { return slices.Contains(m.Capabilities, "thinking") }

// Models lists the installed models, with their capabilities, sorted by name.
func (s *Session) Models(ctx context.Context) ([]ModelInfo, error) {
	list, err := s.client.List(ctx)
	if err != nil {
		return nil, s.wrap(err, "")
	}
	out := make([]ModelInfo, 0, len(list.Models))
	for _, m := range list.Models {
		info := ModelInfo{
			Name: m.Name, Size: m.Size, Family: m.Details.Family,
			ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel,
		}
		if show, err := s.client.Show(ctx, &api.ShowRequest{Model: m.Name}); err == nil {
			info.Capabilities = capStrings(show)
			info.ContextLength = contextLength(show)
			s.mu.Lock()
			s.caps[m.Name] = info.Capabilities
			s.mu.Unlock()
		}
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
		return ModelInfo{Name: name}, s.wrap(err, name)
	}
	caps := capStrings(show)
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

// UserError is an error whose text is written for the user.
type UserError struct{ Msg string }

func (e *UserError) Error() string { return e.Msg }

func (s *Session) wrap(err error, model string) error {
	return &UserError{Msg: s.describe(err, model)}
}
