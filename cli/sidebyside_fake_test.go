package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"latch/session/ollamatest"
)

// sideServer is the model server of the side-by-side figures: the fake
// Ollama (ollamatest) for Ollama's native API, and beside it Ollama's
// OpenAI-compatible chat endpoint, /v1/chat/completions, streaming the
// same chunks at the same pace. latch streams from /api/chat; kit's ollama
// provider probes /api/show and /api/generate and then streams from
// /v1/chat/completions, as crush's openai provider does.
type sideServer struct {
	srv   *httptest.Server
	fake  *ollamatest.Server
	model string
	turn  ollamatest.Turn

	mu       sync.Mutex
	requests int // /v1/chat/completions requests answered with the reply
	titles   int // and with a title (crush's title of the session)
}

// titleAsk is how crush asks its small model for a session's title.
const titleAsk = "Generate a concise title"

// newSideServer starts a server whose next /api/chat turn, and whose every
// /v1/chat/completions reply (but a title), is turn.
func newSideServer(t *testing.T, model string, turn ollamatest.Turn) *sideServer {
	t.Helper()
	s := &sideServer{
		fake:  ollamatest.New(ollamatest.Model{Name: model, Capabilities: []string{"completion"}}),
		model: model,
		turn:  turn,
	}
	s.fake.Script(turn)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.Handle("/", s.fake)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() { s.srv.Close(); s.fake.Close() })
	return s
}

// Host is the server's host:port.
func (s *sideServer) Host() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// counts returns the chat requests each endpoint answered with the reply.
func (s *sideServer) counts() (native, openai, titles int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.fake.Requests()), s.requests, s.titles
}

func (s *sideServer) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","created":%d,"owned_by":"library"}]}`,
		s.model, time.Now().Unix())
}

// chat streams the reply as Ollama's OpenAI layer does: one SSE "data:"
// event per chunk (delta.content), then one with finish_reason "stop", the
// usage if the request asked for it, and "data: [DONE]". Chunk i is sent
// Delay*(i+1) after the reply started, as ollamatest paces /api/chat.
func (s *sideServer) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	chunks, delay := s.turn.Chunks, s.turn.Delay
	s.mu.Lock()
	if bytes.Contains(body, []byte(titleAsk)) {
		chunks, delay = ollamatest.Tokens("Long markdown document"), 0
		s.titles++
	} else {
		s.requests++
	}
	s.mu.Unlock()
	if !req.Stream {
		http.Error(w, "sidebyside: only streamed chat is served", http.StatusBadRequest)
		return
	}
	id := fmt.Sprintf("chatcmpl-%d", time.Now().UnixNano()%1000)
	event := func(delta map[string]string, finish any, usage any) bool {
		choices := []any{}
		if delta != nil {
			choices = append(choices, map[string]any{"index": 0, "delta": delta, "finish_reason": finish})
		}
		v := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": req.Model, "system_fingerprint": "fp_ollama", "choices": choices,
		}
		if usage != nil {
			v["usage"] = usage
		}
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		w.(http.Flusher).Flush()
		return true
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	start := time.Now()
	for i, c := range chunks {
		if d := time.Until(start.Add(delay * time.Duration(i+1))); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		if !event(map[string]string{"role": "assistant", "content": c.Content}, nil, nil) {
			return
		}
	}
	if !event(map[string]string{"role": "assistant", "content": ""}, "stop", nil) {
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		usage := map[string]int{"prompt_tokens": 100, "completion_tokens": len(chunks), "total_tokens": 100 + len(chunks)}
		if !event(nil, nil, usage) {
			return
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}
