package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/ollama/ollama/api"
)

// RawOllama reaches Ollama for what the api package (v0.17.4) cannot
// read: the capabilities and trained context that Ollama v0.32 lists for
// each model in /api/tags (api/types.go ListModelResponse.Capabilities,
// ModelDetails.ContextLength; observed on v0.32.15). Zero, /api/show is
// asked once per model instead, as it must be on v0.17.4.
type RawOllama struct {
	URL  *url.URL     // the base URL, e.g. http://127.0.0.1:11434
	HTTP *http.Client // nil: http.DefaultClient
}

// tagsModel is a model as /api/tags lists it, with what v0.32 adds.
type tagsModel struct {
	api.ListModelResponse
	Capabilities []string `json:"capabilities"`
	Details      struct {
		api.ModelDetails
		ContextLength int `json:"context_length"`
	} `json:"details"`
}

// tags lists the installed models through RawOllama; ok is false when it
// is not set, and then the api client's List is the way.
func (s *Session) tags(ctx context.Context) (_ []tagsModel, ok bool, _ error) {
	if s.raw.URL == nil {
		return nil, false, nil
	}
	c := s.raw.HTTP
	if c == nil {
		c = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.raw.URL.JoinPath("/api/tags").String(), nil)
	if err != nil {
		return nil, true, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return nil, true, &url.Error{Op: "Get", URL: req.URL.String(), Err: err}
	}
	defer func() { _ = res.Body.Close() }()
	var body struct {
		Models []tagsModel `json:"models"`
		Error  string      `json:"error"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, res.Body, 16<<20)).Decode(&body); err != nil || res.StatusCode != http.StatusOK {
		msg := body.Error
		if msg == "" {
			msg = fmt.Sprintf("unreadable answer (%v)", err)
		}
		return nil, true, api.StatusError{StatusCode: res.StatusCode, ErrorMessage: msg}
	}
	return body.Models, true, nil
}

// listModels lists the installed models with what /api/tags says of
// each: with their capabilities and trained context on Ollama v0.32 (a
// model listed without capabilities has them from /api/show).
func (s *Session) listModels(ctx context.Context) ([]tagsModel, error) {
	if ms, ok, err := s.tags(ctx); ok {
		return ms, err
	}
	list, err := s.client.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]tagsModel, len(list.Models))
	for i, m := range list.Models {
		out[i].ListModelResponse = m
		out[i].Details.ModelDetails = m.Details
	}
	return out, nil
}
