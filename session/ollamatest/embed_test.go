package ollamatest

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"
)

var embedder = Model{Name: "nomic-embed-text", Family: "nomic-bert", Capabilities: []string{"embedding"}}

// TestEmbedDeterministic: the same text gets the same unit vector of
// EmbedDim, in every request; texts sharing words are closer than texts
// that do not; the inputs are counted.
func TestEmbedDeterministic(t *testing.T) {
	t.Parallel()
	s := New(embedder, tiny)
	t.Cleanup(s.Close)
	c := s.Client()
	in := []string{"weather forecast for Paris", "create an invoice", "the weather in Lyon"}
	resp, err := c.Embed(context.Background(), &api.EmbedRequest{Model: embedder.Name, Input: in})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != embedder.Name || len(resp.Embeddings) != 3 || resp.PromptEvalCount == 0 {
		t.Fatalf("response %+v", resp)
	}
	dot := func(a, b []float32) float64 {
		var d float64
		for i := range a {
			d += float64(a[i]) * float64(b[i])
		}
		return d
	}
	for i, v := range resp.Embeddings {
		if len(v) != EmbedDim || math.Abs(dot(v, v)-1) > 1e-5 {
			t.Errorf("vector %d: len %d, norm² %f", i, len(v), dot(v, v))
		}
		if !slices.Equal(v, Vector(in[i])) {
			t.Errorf("vector %d differs from Vector(%q)", i, in[i])
		}
	}
	if dot(resp.Embeddings[0], resp.Embeddings[2]) <= dot(resp.Embeddings[0], resp.Embeddings[1]) {
		t.Error("weather texts are not closer to each other than to the invoice")
	}
	again, err := c.Embed(context.Background(), &api.EmbedRequest{Model: embedder.Name, Input: "weather forecast for Paris"})
	if err != nil || len(again.Embeddings) != 1 || !slices.Equal(again.Embeddings[0], resp.Embeddings[0]) {
		t.Errorf("a string input: %v, %v", again, err)
	}
	if n := s.EmbedInputs(); n != 4 {
		t.Errorf("EmbedInputs = %d, want 4", n)
	}
	if got := s.EmbedTexts(); !slices.Equal(got, append(in, in[0])) {
		t.Errorf("EmbedTexts = %q", got)
	}
	short, err := c.Embed(context.Background(), &api.EmbedRequest{Model: embedder.Name, Input: []string{"a b"}, Dimensions: 8})
	if err != nil || len(short.Embeddings[0]) != 8 {
		t.Errorf("dimensions 8: %v, %v", short, err)
	}
}

// TestEmbedErrors: an unknown model is 404, a model that cannot embed 501
// (but 200 for no input), a bad input 400; nothing is counted.
func TestEmbedErrors(t *testing.T) {
	t.Parallel()
	s := New(embedder, tiny)
	t.Cleanup(s.Close)
	c := s.Client()
	for _, tc := range []struct {
		model  string
		input  any
		status int
		msg    string
	}{
		{"nope", []string{"x"}, http.StatusNotFound, "model 'nope' not found"},
		{"", []string{"x"}, http.StatusNotFound, "model '' not found"},
		{"tiny", []string{"x"}, http.StatusNotImplemented, "this model does not support embeddings"},
		{"tiny", []any{"x", 3}, http.StatusBadRequest, "invalid input type"},
		{embedder.Name, 42, http.StatusBadRequest, "invalid input type"},
	} {
		_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: tc.model, Input: tc.input})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != tc.status || se.ErrorMessage != tc.msg {
			t.Errorf("%s %v: %v, want %d %q", tc.model, tc.input, err, tc.status, tc.msg)
		}
	}
	resp, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "tiny", Input: []string{}})
	if err != nil || resp.Embeddings == nil || len(resp.Embeddings) != 0 {
		t.Errorf("no input to a chat model: %+v, %v", resp, err)
	}
	if code, _, _ := post(t, s, http.MethodGet, "/api/embed", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/embed: %d", code)
	}
	if n := s.EmbedInputs(); n != 0 {
		t.Errorf("EmbedInputs = %d after failures, want 0", n)
	}
}
