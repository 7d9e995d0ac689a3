package ollamatest

import (
	"hash/fnv"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// EmbedDim is the length of the vectors the fake's /api/embed returns.
const EmbedDim = 64

// Vector is the embedding the fake gives a text: a hashed bag of words
// (lower-cased runs of letters and digits, each adding ±1 at FNV-1a(word)
// mod EmbedDim, the sign from the hash's top bit), normalized to length 1 as Ollama normalizes every
// embedding. A text without words gets the zero vector (Ollama's
// normalize leaves it so). Texts sharing words are close: a crude but
// deterministic stand-in for a real embedding model.
func Vector(text string) []float32 {
	v := make([]float32, EmbedDim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		sum := h.Sum32()
		if sum&(1<<31) != 0 {
			v[sum%EmbedDim]--
		} else {
			v[sum%EmbedDim]++
		}
	}
	return normalize(v)
}

func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	n := float32(1 / max(math.Sqrt(sum), 1e-12))
	for i := range v {
		v[i] *= n
	}
	return v
}

// EmbedInputs is how many inputs /api/embed has embedded (the inputs of
// requests that succeeded), for tests of a cache.
func (s *Server) EmbedInputs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.embedded)
}

// EmbedTexts are the inputs /api/embed has embedded, in order.
func (s *Server) EmbedTexts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.embedded)
}

// handleEmbed answers POST /api/embed as Ollama v0.17.4's EmbedHandler
// does (docs/OLLAMA.md, "Embeddings"): input is a string (an empty one
// embeds nothing) or a list of strings, else 400 "invalid input type"; an
// unknown model is 404 "model 'NAME' not found"; the model is loaded, and
// no input answers 200 with no embeddings, whatever the model; a model
// without the "embedding" capability then fails in its runner, which
// answers 501 "this model does not support embeddings" (passed on as is).
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req api.EmbedRequest
	if _, err := readJSON(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, jsonUTF8, errBody(err.Error()))
		return
	}
	var input []string
	switch in := req.Input.(type) {
	case string:
		if in != "" {
			input = append(input, in)
		}
	case []any:
		for _, v := range in {
			str, ok := v.(string)
			if !ok {
				writeJSON(w, http.StatusBadRequest, jsonUTF8, errBody("invalid input type"))
				return
			}
			input = append(input, str)
		}
	default:
		if req.Input != nil {
			writeJSON(w, http.StatusBadRequest, jsonUTF8, errBody("invalid input type"))
			return
		}
	}
	var e *entry
	if n := model.ParseName(req.Model); n.IsValid() {
		e = s.find(n)
	}
	if e == nil {
		writeJSON(w, http.StatusNotFound, jsonUTF8, errBody("model '"+req.Model+"' not found"))
		return
	}
	loadDur := s.load(e, req.KeepAlive, DefaultNumCtx)
	if len(input) == 0 {
		writeJSON(w, http.StatusOK, jsonUTF8, api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}})
		return
	}
	if !e.has("embedding") {
		writeJSON(w, http.StatusNotImplemented, jsonUTF8, errBody("this model does not support embeddings"))
		return
	}
	resp := api.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, len(input)), LoadDuration: loadDur}
	for i, text := range input {
		v := Vector(text)
		if req.Dimensions > 0 && req.Dimensions < len(v) {
			v = normalize(v[:req.Dimensions])
		}
		resp.Embeddings[i] = v
		resp.PromptEvalCount += 2 + len(split(text))
	}
	resp.TotalDuration = max(time.Since(start), loadDur+time.Millisecond)
	s.mu.Lock()
	s.embedded = append(s.embedded, input...)
	s.notifyLocked()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, jsonUTF8, resp)
}
