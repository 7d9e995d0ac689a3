package gateway_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/session"
)

// 15,000 sessions opened (initialize) and never closed do not make the
// gateway hold them all: past serve.http_sessions_max, each new one ends
// the idlest, so the heap holds about as many as the cap, and as many
// clients are counted.
func TestNeverClosedSessionsAreCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("long (15,000 HTTP sessions opened): make test-e2e runs it")
	}
	up := newHoldServer()
	defer up.release()
	var clients atomic.Int64
	r := newRig(t, gateway.Options{OnClients: func(n int) { clients.Store(int64(n)) }},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	hc := &http.Client{Timeout: time.Minute}
	defer hc.CloseIdleConnections()
	before := heapInUse()
	for i := range 15000 {
		if id := initialize(t, hc, r.url); id == "" {
			t.Fatalf("initialize %d: no session", i+1)
		}
	}
	held := heapInUse() - before
	t.Logf("15000 never-closed sessions: the heap grew by %.1f MiB; %d clients counted", float64(held)/(1<<20), clients.Load())
	if max := int64(gateway.DefaultLimits.Sessions); clients.Load() > max {
		t.Errorf("%d clients hold a session; want at most serve.http_sessions_max, %d", clients.Load(), max)
	}
	if held > 64<<20 {
		t.Errorf("the heap grew by %d bytes; want at most 64 MiB for the %d sessions kept", held, gateway.DefaultLimits.Sessions)
	}
}

// A session past serve.http_sessions_max ends the idlest: that client's
// next request is refused (404, the spec's answer for an ended session)
// and it may start a new session; the others keep theirs.
func TestNewSessionPastTheCapEndsTheIdlest(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := newRig(t, gateway.Options{Limits: gateway.Limits{Sessions: 2}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	first := r.connectAt(t, "2025-11-25", "first", nil)
	second := r.connectAt(t, "2025-11-25", "second", nil)
	if res, err := call(t, first, "up__echo", map[string]any{"text": "1"}); err != nil || res.IsError {
		t.Fatalf("first's call: %v %+v", err, res) // first is now the less idle
	}
	ended := second.GetSessionId()
	third := r.connectAt(t, "2025-11-25", "third", nil)
	if _, err := call(t, second, "up__echo", nil); err == nil {
		t.Errorf("the idlest session's call went through; want it ended")
	}
	code, body := post(t, &http.Client{Timeout: time.Minute}, r.url, ended, listTools)
	if want := "it was the idlest when a new one passed the 2 sessions it keeps (serve.http_sessions_max)"; code != http.StatusNotFound || !strings.Contains(body, want) {
		t.Errorf("a request of the ended session: %d %q; want 404 %q", code, body, want)
	}
	for _, c := range []struct {
		name string
		res  func() error
	}{{"first", func() error { _, err := call(t, first, "up__echo", nil); return err }},
		{"third", func() error { _, err := call(t, third, "up__echo", nil); return err }}} {
		if err := c.res(); err != nil {
			t.Errorf("%s's call: %v", c.name, err)
		}
	}
	again := r.connectAt(t, "2025-11-25", "second", nil)
	if res, err := call(t, again, "up__echo", map[string]any{"text": "back"}); err != nil || text(res) != "echo back" {
		t.Errorf("the ended client, in a new session: %v %+v", err, res)
	}
}

// A session with no request under way for serve.http_session_idle ends:
// the gateway counts its client gone, and its next request is refused.
func TestIdleSessionsAreSwept(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	var mu sync.Mutex
	var counts []int // every count of clients, in turn
	r := newRig(t, gateway.Options{Limits: gateway.Limits{SessionIdle: 200 * time.Millisecond},
		OnClients: func(n int) { mu.Lock(); counts = append(counts, n); mu.Unlock() }},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.connectAt(t, "2025-11-25", "idler", nil)
	swept := c.GetSessionId()
	mcptestutil.WaitFor(t, 20*time.Second, "the client counted, then its idle session ended", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Equal(counts, []int{1, 0})
	})
	if _, err := call(t, c, "up__echo", nil); err == nil {
		t.Errorf("the swept session's call went through")
	}
	code, body := post(t, &http.Client{Timeout: time.Minute}, r.url, swept, listTools)
	if want := "no request for 200ms (serve.http_session_idle)"; code != http.StatusNotFound || !strings.Contains(body, want) {
		t.Errorf("a request of the swept session: %d %q; want 404 %q", code, body, want)
	}
}

// initialize opens a session with a bare initialize request and returns
// its id; the response is read whole, and the session never closed.
func initialize(t *testing.T, hc *http.Client, url string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`
	code, _, id := postFull(t, hc, url, "", body)
	if code != http.StatusOK {
		t.Fatalf("initialize: %d", code)
	}
	return id
}

// listTools is a tools/list request.
const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// post posts body to the gateway in session sid, and returns the status
// and the body of the answer.
func post(t *testing.T, hc *http.Client, url, sid, body string) (int, string) {
	t.Helper()
	code, text, _ := postFull(t, hc, url, sid, body)
	return code, text
}

// postFull is post, with the session id the answer names.
func postFull(t *testing.T, hc *http.Client, url, sid, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Mcp-Session-Id")
}
