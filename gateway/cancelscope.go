package gateway

// A request of the 2026-07-28 form over HTTP has no session: mcp-go's
// streamable HTTP server keys it for notifications/cancelled by its
// JSON-RPC id alone, and every client counts its ids from 0 or 1. One
// client's cancel would then end another's call that has the same id.
// The gateway keys them itself, by the client the request's token names
// (the shared token is one client): a client's cancel reaches its own
// requests of that id, those mcp-go runs and the plain calls latch's
// front answers alike, and never reaches mcp-go with its requestId.
//
// A 2025 session's requests need none of this: mcp-go keys them by their
// session, and a session is its client's alone (httpsessions.go). Over
// stdio the connection is the client.

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// inflight are the requests of the 2026-07-28 form under way over HTTP,
// by the client whose token each carried.
type inflight struct {
	mu sync.Mutex
	by map[string]map[*inflightRequest]struct{}
}

// inflightRequest is a request under way: its body (its id is read from
// it only when a cancel of its client's comes), and what cancels it.
type inflightRequest struct {
	body   []byte
	cancel context.CancelFunc
	read   sync.Once
	id     string // the id as mcpgoID writes it, once read; "" for none
}

// idOf is the request's id as mcpgoID writes it, read from its body the
// first time it is asked for; "" for none.
func (r *inflightRequest) idOf() string {
	r.read.Do(func() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(r.body, &m) == nil && len(m.ID) > 0 && string(m.ID) != "null" {
			r.id = string(mcpgoID(m.ID))
		}
	})
	return r.id
}

func newInflight() *inflight {
	return &inflight{by: map[string]map[*inflightRequest]struct{}{}}
}

// track notes each POST of the 2026-07-28 form under way, with its
// client, so that the client's cancel can end it: its context is
// cancelled (mcp-go then answers nothing, nor does latch's front, as
// for a client that closed its stream). Nothing is decoded here.
func (f *inflight) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held, ok := r.Body.(*heldBody)
		if r.Method != http.MethodPost || !ok || !mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		caller, _ := r.Context().Value(callerKey{}).(string)
		ctx, cancel := context.WithCancel(r.Context())
		req := &inflightRequest{body: held.b, cancel: cancel}
		f.mu.Lock()
		mine := f.by[caller]
		if mine == nil {
			mine = map[*inflightRequest]struct{}{}
			f.by[caller] = mine
		}
		mine[req] = struct{}{}
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			delete(mine, req)
			f.mu.Unlock()
			cancel()
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// cancel ends caller's requests under way whose id is id (as mcpgoID
// writes it). Their bodies are read outside the lock: one may be large.
func (f *inflight) cancel(caller, id string) {
	f.mu.Lock()
	mine := make([]*inflightRequest, 0, len(f.by[caller]))
	for req := range f.by[caller] {
		mine = append(mine, req)
	}
	f.mu.Unlock()
	for _, req := range mine {
		if id != "" && req.idOf() == id {
			req.cancel()
		}
	}
}

// scoped is mcp-go's streamable HTTP server with the cancels of the
// 2026-07-28 form taken out of its hands (see inflight).
type scoped struct {
	mcpGoHTTP
	f *inflight
}

// mcpGoHTTP is mcp-go's streamable HTTP server as latch's front uses it.
type mcpGoHTTP interface {
	http.Handler
	SupportsProtocolVersion(version string) bool
}

// ServeHTTP passes r to mcp-go, a notifications/cancelled of the
// 2026-07-28 form without its requestId (mcp-go then cancels nothing,
// and answers it as it would have); when mcp-go took it (202), the
// sender's own requests of that id are cancelled.
func (s scoped) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
		s.mcpGoHTTP.ServeHTTP(w, r)
		return
	}
	body, err := holdBody(r)
	if err != nil {
		s.mcpGoHTTP.ServeHTTP(w, r)
		return
	}
	id, rest, ok := cancelNotice(body)
	if !ok {
		s.mcpGoHTTP.ServeHTTP(w, r)
		return
	}
	r.Body, r.ContentLength = newHeldBody(rest), int64(len(rest))
	sw := &statusWriter{ResponseWriter: w}
	s.mcpGoHTTP.ServeHTTP(sw, r)
	if sw.status == http.StatusAccepted {
		caller, _ := r.Context().Value(callerKey{}).(string)
		s.f.cancel(caller, string(mcpgoID(id)))
	}
}

// cancelNotice reads body as mcp-go reads a notification: when it is a
// notifications/cancelled naming a request (params' "requestId", as
// mcp-go looks it up), it is that id and the body without it.
func cancelNotice(body []byte) (id json.RawMessage, rest []byte, ok bool) {
	var m struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      json.RawMessage            `json:"id"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || (len(m.ID) > 0 && string(m.ID) != "null") ||
		m.Method != string(mcpgo.MethodNotificationCancelled) {
		return nil, nil, false
	}
	id, named := m.Params["requestId"]
	if !named {
		return nil, nil, false
	}
	delete(m.Params, "requestId")
	m.ID = nil
	rest, err := json.Marshal(struct {
		JSONRPC string                     `json:"jsonrpc"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params"`
	}{m.JSONRPC, m.Method, m.Params})
	if err != nil {
		return nil, nil, false
	}
	return id, rest, true
}

// statusWriter is a ResponseWriter that notes the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

// Flush flushes what was written, when the writer can.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
