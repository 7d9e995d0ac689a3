package gateway

// The HTTP client's plain tool calls of the 2026-07-28 stateless form are
// answered here rather than by mcp-go's streamable HTTP server, as the
// stdio client's are (stdiofast.go). mcp-go decodes such a request five
// times over before the handler runs (for its shape, its era, its
// protocol info, its headers' agreement, the call) and gives it an
// ephemeral session of its own (about 9 KB, and a goroutine): about as
// much CPU as latch's handler. A plain call is decoded once, checked as
// mcp-go checks it, run by the same handler mcp-go would run (limits,
// gate, log line) in a context that says what mcp-go's would (the
// client's name and capabilities from _meta, the request's era), and
// answered with the bytes, status and Content-Type mcp-go answers with,
// in one write of known length.
//
// Every check latch makes of a request (guard, session tracking, task
// router) has run before this. Any request mcp-go would refuse, or
// answer otherwise than with a call's result, goes to mcp-go untouched:
// one of an older protocol (its sessions are mcp-go's), one whose
// Mcp-Protocol-Version, Mcp-Method or Mcp-Name header is missing or does
// not agree with its body, a version the transport does not serve, a
// Last-Event-ID, a Host mcp-go's DNS-rebinding check refuses, a body
// that is not application/json, a tool whose input schema binds
// arguments to headers (x-mcp-header), and every call plainCallOf leaves
// to mcp-go (a tool not served, a task, a progress token, a retry...).

import (
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"strconv"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// plainHTTP answers the plain calls posted to it, in front of mcp-go's
// streamable HTTP server next (whose supported protocol versions it
// follows), and passes everything else to next.
func (g *Gateway) plainHTTP(next mcpGoHTTP) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := g.plainPost(r, next.SupportsProtocolVersion); ok {
			g.answerPlainHTTP(w, r, c)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// plainPost reads r as a plain call of the 2026-07-28 stateless form
// that mcp-go would run, or says it is not one. The cheap checks of the
// headers come first: a request of a 2025 session is not decoded here.
func (g *Gateway) plainPost(r *http.Request, supports func(string) bool) (*plainCall, bool) {
	h := r.Header
	version := h.Get(mcpgo.HeaderProtocolVersion)
	if r.Method != http.MethodPost || r.Body == nil || !mcpgo.IsModernProtocol(version) ||
		h.Get(mcpgo.HeaderMethod) != string(mcpgo.MethodToolsCall) || h.Get(lastEventID) != "" ||
		!jsonBody(h.Get("Content-Type")) || rebinding(r) {
		return nil, false
	}
	body, err := holdBody(r)
	if err != nil {
		return nil, false
	}
	m, ok := g.plainCallOf(body)
	if !ok || m.era == nil || m.era.ProtocolVersion != version || !supports(version) {
		return nil, false
	}
	// Mcp-Name must name the tool of the body, as mcp-go reads it
	// (ValidateStandardHeaders); a tool whose schema binds arguments to
	// headers has them checked by mcp-go.
	name := h.Get(mcpgo.HeaderName)
	if decoded, ok := mcpgo.DecodeHeaderValue(name); name == "" || !ok || decoded != m.Params.Name {
		return nil, false
	}
	g.mu.Lock()
	headed := g.headed[m.Params.Name]
	g.mu.Unlock()
	if headed {
		return nil, false
	}
	return m, true
}

// lastEventID is the Last-Event-ID header's name as net/http keys it:
// looked up by the name as written, it would be made so on every request.
var lastEventID = http.CanonicalHeaderKey(mcpgo.HeaderLastEventID)

// jsonBody says whether a Content-Type is application/json, as mcp-go
// reads it (with parameters, any case).
func jsonBody(contentType string) bool {
	if contentType == "application/json" {
		return true // the common case, without parsing
	}
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "application/json"
}

// rebinding says whether mcp-go's DNS-rebinding protection refuses r: it
// came on a loopback connection with a Host that is not loopback.
func rebinding(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && loopbackHost(local.String()) && !loopbackHost(r.Host)
}

// loopbackHost says whether addr (a host, or host:port) is loopback, as
// mcp-go's rebinding check reads it.
func loopbackHost(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return loopback(host)
}

// answerPlainHTTP runs m as mcp-go runs a call of the 2026-07-28 form (in
// a session of the request's own, which takes the client's name and
// capabilities from _meta) and answers it as mcp-go does: the result,
// marked complete and naming latch, or the error mcp-go's recovery gives
// a handler that panicked; 200, application/json, a newline after it.
// Nothing is written to a client that went away during the call.
func (g *Gateway) answerPlainHTTP(w http.ResponseWriter, r *http.Request, m *plainCall) {
	g.plainRuns.Add(1)
	s := &requestSession{}
	takeEra(s, m.era)
	ctx := server.WithRequestProtocolInfo(g.srv.WithContext(r.Context(), s), m.era)
	req := m.request()
	req.Header = r.Header
	res, err := g.callPlain(ctx, req)
	if r.Context().Err() != nil {
		// The client is gone (on this protocol, closing the stream is
		// how it cancels): mcp-go writes nothing then, and neither does
		// this. An answer written to a proxy that is dropping the
		// connection could find that connection reused for its next
		// request.
		return
	}
	var meta []byte
	if err == nil {
		meta = g.completeEncoded(res)
	}
	b := plainAnswer(mcpgoID(m.ID), res, meta, err)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// mcpgoID is a request id as mcp-go writes it back over HTTP: decoded
// into a Go value and encoded again (1e3 is 1000, "\u0041" is "A"). A
// plain integer, what clients send, is that already.
func mcpgoID(raw json.RawMessage) []byte {
	if n := len(raw); n > 0 && n <= 15 && (raw[0] != '0' || n == 1) {
		digits := true
		for _, c := range raw {
			digits = digits && c >= '0' && c <= '9'
		}
		if digits {
			return raw
		}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// requestSession is the session of one plain call over HTTP: what mcp-go
// gives a request of the 2026-07-28 form, the client's name and
// capabilities as its _meta says them. It has no id (limits.go's
// clientKey then keys the call by its client) and takes no notification
// (a call with a progress token goes to mcp-go).
type requestSession struct {
	mu          sync.Mutex
	initialized bool
	info        mcpgo.Implementation
	caps        mcpgo.ClientCapabilities
}

var _ server.SessionWithClientInfo = (*requestSession)(nil)

// Initialize marks the session as set up.
func (s *requestSession) Initialize() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.initialized = true
}

// Initialized says whether Initialize was called.
func (s *requestSession) Initialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// NotificationChannel is nil: a notification to the session is dropped
// (mcp-go sends without blocking).
func (*requestSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification { return nil }

// SessionID is "": a request of the 2026-07-28 form has no session id.
func (*requestSession) SessionID() string { return "" }

// GetClientInfo is the client's name and version, as its _meta said.
func (s *requestSession) GetClientInfo() mcpgo.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// SetClientInfo sets the client's name and version.
func (s *requestSession) SetClientInfo(info mcpgo.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.info = info
}

// GetClientCapabilities are the client's capabilities, as its _meta said.
func (s *requestSession) GetClientCapabilities() mcpgo.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// SetClientCapabilities sets the client's capabilities.
func (s *requestSession) SetClientCapabilities(caps mcpgo.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caps = caps
}
