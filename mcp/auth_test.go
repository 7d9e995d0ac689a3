package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// authServer is a streamable-HTTP MCP server behind a bearer check. It
// records the Authorization header of every request, answers 401 to any
// token but the accepted one, and has tools that echo the caller's
// Authorization back: in a result, and in an error.
type authServer struct {
	*httptest.Server
	mu       sync.Mutex
	accept   string
	seen     []string
	sessions map[string]string // Authorization by MCP session id
}

type authKey struct{}

func newAuthServer(t *testing.T, accept string) *authServer {
	a := &authServer{accept: accept, sessions: map[string]string{}}
	s := mcpserver.NewMCPServer("auth-srv", "1.0")
	s.AddTool(mcpgo.NewTool("whoami"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("you sent " + fmt.Sprint(ctx.Value(authKey{}))), nil
	})
	s.AddTool(mcpgo.NewTool("leaky_error"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, fmt.Errorf("backend rejected header %v", ctx.Value(authKey{}))
	})
	s.AddTool(mcpgo.NewTool("leaky_result_error"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultError(fmt.Sprintf("bad credentials: %v", ctx.Value(authKey{}))), nil
	})
	h := mcpserver.NewStreamableHTTPServer(s, mcpserver.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		return context.WithValue(ctx, authKey{}, r.Header.Get("Authorization"))
	}))
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		a.mu.Lock()
		a.seen = append(a.seen, r.Method+" "+got)
		ok := got == "Bearer "+a.accept
		a.mu.Unlock()
		if !ok {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *authServer) setAccept(tok string) {
	a.mu.Lock()
	a.accept = tok
	a.mu.Unlock()
}

func (a *authServer) headers() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

func (a *authServer) reset() {
	a.mu.Lock()
	a.seen = nil
	a.mu.Unlock()
}

func TestTokenRotationWithTokenFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	os.WriteFile(file, []byte("old-token-1111\n"), 0o600)
	srv := newAuthServer(t, "old-token-1111")
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: srv.URL + "/mcp", TokenFile: file}}, Options{})
	defer m.CloseAll()
	m.Start()
	waitState(t, m, "crm", StateConnected, 5*time.Second)
	if res, err := m.Call(context.Background(), "crm__whoami", nil, ""); err != nil || !strings.Contains(res.Text, redacted) {
		t.Fatalf("whoami: %v %+v", err, res)
	}
	for _, h := range srv.headers() {
		if !strings.HasSuffix(h, " Bearer old-token-1111") {
			t.Fatalf("server saw %q", h)
		}
	}

	// Rotate: the server now wants the new token; the user updates the file
	// and reconnects.
	os.WriteFile(file, []byte("new-token-2222\n"), 0o600)
	srv.setAccept("new-token-2222")
	srv.reset()
	if err := m.Connect("crm"); err != nil {
		t.Fatalf("reconnect: %v", err)
	}
	if _, err := m.Call(context.Background(), "crm__whoami", nil, ""); err != nil {
		t.Fatal(err)
	}
	seen := srv.headers()
	if len(seen) == 0 {
		t.Fatal("no requests after the reconnect")
	}
	posts := 0
	for _, h := range seen {
		// The old session ends with a DELETE carrying the token it was
		// opened with, and its listening GET stream may reopen (and be
		// refused) before it is closed; every request of the new one —
		// the handshake, the tool list, the call: POSTs — carries the
		// new token.
		switch h {
		case "DELETE Bearer old-token-1111", "GET Bearer old-token-1111":
		case strings.Fields(h)[0] + " Bearer new-token-2222":
			if strings.HasPrefix(h, "POST ") {
				posts++
			}
		default:
			t.Fatalf("after rotation the server saw %q", h)
		}
	}
	if posts < 3 {
		t.Errorf("%d requests of the new session carried the new token, want the handshake, the list and the call", posts)
	}
}

// TestCloseEndsHTTPSession: /close ends the streamable-HTTP session at the
// server with a DELETE that carries the token, which mcp-go alone sends
// without any header, so that a server behind a bearer check refused it.
// (Only the handshake era has sessions.)
func TestCloseEndsHTTPSession(t *testing.T) {
	srv := newAuthServer(t, "tok-3333")
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: srv.URL + "/mcp", Token: "tok-3333",
		Headers: map[string]string{"X-Org": "acme"}, Protocol: ProtocolLegacy}}, Options{})
	defer m.CloseAll()
	m.Start()
	waitState(t, m, "crm", StateConnected, 5*time.Second)
	if err := m.Close("crm"); err != nil {
		t.Fatal(err)
	}
	var deletes []string
	for _, h := range srv.headers() {
		if strings.HasPrefix(h, "DELETE ") {
			deletes = append(deletes, h)
		}
	}
	if len(deletes) != 1 || deletes[0] != "DELETE Bearer tok-3333" {
		t.Fatalf("the server saw the session end with %q, want one DELETE with the token", deletes)
	}
}

func TestUnauthorizedMeansAuthExpired(t *testing.T) {
	srv := newAuthServer(t, "right")
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: srv.URL + "/mcp", Token: "wrong"}}, Options{})
	defer m.CloseAll()
	m.Start()
	st := waitState(t, m, "crm", StateAuthExpired, 5*time.Second)
	if !strings.Contains(st.Summary(), "/token crm") || !strings.Contains(st.Summary(), "/connect crm") {
		t.Fatalf("no hint: %q", st.Summary())
	}
	// /token fixes it, in memory.
	if err := m.SetToken("crm", "right"); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "crm", StateConnected, time.Second)
	// The server revokes the token: the next call fails and says so.
	srv.setAccept("rotated-away")
	_, err := m.Call(context.Background(), "crm__whoami", nil, "")
	if err == nil || !strings.Contains(err.Error(), "/token crm") {
		t.Fatalf("call after revocation: %v", err)
	}
	waitState(t, m, "crm", StateAuthExpired, time.Second)
}

// TestSentinelTokenNeverLeaks tries every way a credential could escape
// the manager: events, statuses, logs, errors and results, across a
// connect, calls, an echoed token in a result and in errors, a 401 and a
// reconnect.
func TestSentinelTokenNeverLeaks(t *testing.T) {
	const sentinel = "SENTINEL-c0ffee-5ecret"
	t.Setenv("LATCH_TEST_TOKEN", sentinel)
	srv := newAuthServer(t, sentinel)
	var mu sync.Mutex
	var out []string
	record := func(s string) { mu.Lock(); out = append(out, s); mu.Unlock() }
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: srv.URL + "/mcp", TokenEnv: "LATCH_TEST_TOKEN"}},
		Options{OnEvent: func(e Event) { record(fmt.Sprintf("%#v", e)) }})
	defer m.CloseAll()
	m.Start()
	waitState(t, m, "crm", StateConnected, 5*time.Second)
	for _, tool := range []string{"crm__whoami", "crm__leaky_error", "crm__leaky_result_error", "crm__nosuch"} {
		res, err := m.Call(context.Background(), tool, map[string]any{"x": 1}, "call-1")
		record(fmt.Sprintf("%#v %v", res, err))
	}
	srv.setAccept("other")
	_, err := m.Call(context.Background(), "crm__whoami", nil, "")
	record(fmt.Sprint(err))
	srv.setAccept(sentinel)
	record(fmt.Sprint(m.Connect("crm")))
	for _, st := range m.Statuses() {
		record(fmt.Sprintf("%#v", st))
	}
	logs, _ := m.Logs("crm")
	record(strings.Join(logs, "\n"))
	for _, tl := range m.Tools() {
		record(fmt.Sprintf("%#v", tl))
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(out, "\n")
	if strings.Contains(all, sentinel) {
		i := strings.Index(all, sentinel)
		t.Fatalf("the sentinel leaked: …%s…", all[max(0, i-200):min(len(all), i+100)])
	}
	if !strings.Contains(all, redacted) {
		t.Fatal("expected the echoed token to show as redacted somewhere")
	}
}
