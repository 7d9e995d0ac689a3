package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
)

const (
	redirToken  = "SENTINEL-redirect-token-9a1f"
	redirAPIKey = "SENTINEL-redirect-apikey-4c2e"
)

// recorder is an http.Handler in front of another that records the method,
// path and headers of every request it sees.
type recorder struct {
	mu   sync.Mutex
	seen []string // "METHOD path Header: value; ..."
	next http.Handler
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString(r.Method + " " + r.URL.Path)
	for k, vs := range r.Header {
		b.WriteString(" " + k + ": " + strings.Join(vs, ","))
	}
	rec.mu.Lock()
	rec.seen = append(rec.seen, b.String())
	rec.mu.Unlock()
	rec.next.ServeHTTP(w, r)
}

func (rec *recorder) requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.seen...)
}

// newAttacker starts a working MCP server (streamable HTTP, or SSE) on a
// second loopback port, a different origin, that records every request,
// so that a client which follows a redirect to it goes on to use a session
// there: open it (POST), listen (GET) and end it (DELETE).
func newAttacker(t *testing.T, sse bool) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	if sse {
		// The endpoint it announces is relative, so that it resolves
		// against the configured URL: the redirect brings those POSTs
		// here too.
		rec.next = mcpserver.NewSSEServer(echoServer())
	} else {
		rec.next = mcpserver.NewStreamableHTTPServer(echoServer())
	}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	return ts, rec
}

// assertNoLeak fails if any request the attacker saw carried the token or
// the API key.
func assertNoLeak(t *testing.T, rec *recorder) {
	t.Helper()
	for _, r := range rec.requests() {
		if strings.Contains(r, redirToken) || strings.Contains(r, redirAPIKey) {
			t.Errorf("the other origin received a credential: %s", r)
		}
	}
}

// waitSettled waits until the server is no longer connecting.
func waitSettled(t *testing.T, m *Manager, name string) Status {
	t.Helper()
	deadline := time.Now().Add(mcptestutil.HangBound(5 * time.Second))
	for {
		st, err := m.Status(name)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != StateConnecting && st.State != StateClosed {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s: still %s", name, st.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCrossOriginRedirectKeepsCredentials: a streamable-HTTP server that
// redirects every request (POST, GET, DELETE) to another loopback port
// makes the connect fail with an error naming the server and the target,
// and the other origin never sees the token or the configured header.
func TestCrossOriginRedirectKeepsCredentials(t *testing.T) {
	evil, rec := newAttacker(t, false)
	h := mcpserver.NewStreamableHTTPServer(echoServer())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodGet, http.MethodDelete:
			http.Redirect(w, r, evil.URL+"/mcp", http.StatusTemporaryRedirect)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: srv.URL + "/mcp", Token: redirToken,
		Headers: map[string]string{"X-Api-Key": redirAPIKey}}}, Options{})
	defer m.CloseAll()
	m.Start()
	st := waitSettled(t, m, "crm")
	// Give a listening GET and the closing DELETE, had the connect
	// succeeded, the chance to reach the other origin too.
	_ = m.Close("crm")
	assertNoLeak(t, rec)
	t.Logf("reason: %s", st.Reason)
	if st.State != StateFailed {
		t.Fatalf("state %s (%s), want failed", st.State, st.Reason)
	}
	target := strings.TrimPrefix(evil.URL, "http://")
	for _, want := range []string{`server "crm" redirected to http://` + target, "refused", "credentials stay with the configured origin"} {
		if !strings.Contains(st.Reason, want) {
			t.Errorf("reason %q lacks %q", st.Reason, want)
		}
	}
	if strings.Contains(st.Reason, redirToken) || strings.Contains(st.Reason, redirAPIKey) {
		t.Errorf("reason shows a credential: %q", st.Reason)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("the other origin saw %d requests, want none: %q", n, rec.requests())
	}
}

// TestCrossOriginRedirectSSE: the same for an SSE server whose stream
// redirects to another loopback port.
func TestCrossOriginRedirectSSE(t *testing.T) {
	evil, rec := newAttacker(t, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	m := New([]ServerConfig{{Name: "feed", Transport: TransportSSE, URL: srv.URL + "/sse", Token: redirToken,
		Headers: map[string]string{"X-Api-Key": redirAPIKey}}}, Options{})
	defer m.CloseAll()
	m.Start()
	st := waitSettled(t, m, "feed")
	_ = m.Close("feed")
	assertNoLeak(t, rec)
	t.Logf("reason: %s", st.Reason)
	if st.State != StateFailed || !strings.Contains(st.Reason, `server "feed" redirected to `+evil.URL+": refused") {
		t.Fatalf("state %s (%s), want failed naming the server and the target", st.State, st.Reason)
	}
}

// TestSameOriginRedirectStillWorks: a redirect within the configured
// origin (/old to /mcp) is followed, with the token and the header.
func TestSameOriginRedirectStillWorks(t *testing.T) {
	h := mcpserver.NewStreamableHTTPServer(echoServer())
	rec := &recorder{next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+redirToken || r.Header.Get("X-Api-Key") != redirAPIKey {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: srv.URL + "/old", Token: redirToken,
		Headers: map[string]string{"X-Api-Key": redirAPIKey}}}, Options{})
	defer m.CloseAll()
	m.Start()
	waitState(t, m, "crm", StateConnected, 5*time.Second)
	if res, err := m.Call(context.Background(), "crm__echo", map[string]any{"message": "hi"}, ""); err != nil || res.Text != "hi" {
		t.Fatalf("call: %v %+v", err, res)
	}
	var followed bool
	for _, r := range rec.requests() {
		if strings.HasPrefix(r, "POST /mcp ") {
			followed = true
		}
	}
	if !followed {
		t.Fatalf("the redirect was not followed: %q", rec.requests())
	}
}

// TestRedirectPolicy checks the redirect check on its own: other schemes
// (https to http on the same host and port included), hosts and ports are
// refused; default ports and letter case do not make another origin.
func TestRedirectPolicy(t *testing.T) {
	check := sameOrigin(ServerConfig{Name: "s", URL: "https://API.example.com/mcp"})
	via := []*http.Request{{URL: mustURL(t, "https://api.example.com/mcp")}}
	for target, ok := range map[string]bool{
		"https://api.example.com/new":      true,
		"https://api.example.com:443/new":  true,
		"HTTPS://api.EXAMPLE.com/new":      true,
		"http://api.example.com/new":       false,
		"http://api.example.com:443/new":   false,
		"https://api.example.com:8443/new": false,
		"https://evil.example/mcp":         false,
		"https://example.com/mcp":          false,
	} {
		err := check(&http.Request{URL: mustURL(t, target)}, via)
		if (err == nil) != ok {
			t.Errorf("%s: err %v, want allowed=%v", target, err, ok)
		}
		if err != nil && !strings.Contains(err.Error(), `server "s" redirected to `) {
			t.Errorf("%s: error %q", target, err)
		}
	}
	long := make([]*http.Request, 10)
	for i := range long {
		long[i] = via[0]
	}
	if err := check(&http.Request{URL: mustURL(t, "https://api.example.com/x")}, long); err == nil {
		t.Error("a redirect loop is followed forever")
	}
}

// TestHeaderTransportOnlyForOrigin: the transport puts the credentials
// only on requests to the configured origin, and refuses a request to
// another one rather than let headers set by mcp-go travel there.
func TestHeaderTransportOnlyForOrigin(t *testing.T) {
	var got []http.Header
	cfg := ServerConfig{Name: "s", URL: "http://127.0.0.1:8080/mcp", Headers: map[string]string{"X-Api-Key": redirAPIKey}}
	tr := newHeaderTransport(cfg, redirToken)
	tr.base = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = append(got, r.Header)
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})
	if _, err := tr.RoundTrip(&http.Request{Method: "DELETE", URL: mustURL(t, "http://127.0.0.1:8080/mcp"), Header: http.Header{}}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Get("Authorization") != "Bearer "+redirToken || got[0].Get("X-Api-Key") != redirAPIKey {
		t.Fatalf("same origin: headers %v", got)
	}
	for _, u := range []string{"http://127.0.0.1:8081/mcp", "https://127.0.0.1:8080/mcp", "http://localhost:8080/mcp"} {
		got = nil
		_, err := tr.RoundTrip(&http.Request{Method: "POST", URL: mustURL(t, u), Header: http.Header{"X-Api-Key": {redirAPIKey}}})
		if err == nil || len(got) != 0 {
			t.Errorf("%s: sent (%v) with headers %v", u, err, got)
		} else if strings.Contains(err.Error(), redirAPIKey) || strings.Contains(err.Error(), redirToken) {
			t.Errorf("%s: error shows a credential: %v", u, err)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
