package mcp

import (
	"fmt"
	"latch/mcp/mcptestutil"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// The tests in this file check that closing an HTTP or SSE server is
// bounded however the server behaves: it accepts and never answers, sends
// its SSE endpoint and never answers a POST, or hangs on the DELETE that
// ends its session.

// stuckServer is an httptest server whose handler is handle; every handler
// that blocks returns at the end of the test (before the server closes,
// which waits for them). seen counts the requests that reached it.
func stuckServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, release <-chan struct{})) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	release := make(chan struct{})
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		handle(w, r, release)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	return srv, &seen
}

// hang blocks until the client goes away or the test ends.
func hang(r *http.Request, release <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-release:
	}
}

// sseEndpointThenHang sends the endpoint event on GET and never answers a
// POST.
func sseEndpointThenHang(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "event: endpoint\ndata: /message?sessionId=x\n\n")
		w.(http.Flusher).Flush()
	}
	hang(r, release)
}

func TestCloseIsBoundedOnEveryHTTPTransport(t *testing.T) {
	cases := []struct {
		name      string
		transport string
		handle    func(http.ResponseWriter, *http.Request, <-chan struct{})
		// requests that must have reached the server before the close
		requests int32
	}{
		{"sse: accepts the GET, never answers", TransportSSE, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			hang(r, release)
		}, 1},
		{"sse: opens the stream, never sends the endpoint", TransportSSE, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			hang(r, release)
		}, 1},
		{"sse: sends the endpoint, never answers a POST", TransportSSE, sseEndpointThenHang, 2},
		{"http: never answers the initialize POST", TransportHTTP, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			hang(r, release)
		}, 1},
	}
	for _, tc := range cases {
		for _, how := range []string{"CloseAll", "Close"} {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				t.Parallel()
				srv, seen := stuckServer(t, tc.handle)
				path := "/mcp"
				if tc.transport == TransportSSE {
					path = "/sse"
				}
				m := New([]ServerConfig{{Name: "stuck", Transport: tc.transport, URL: srv.URL + path,
					Timeout: neverTimeout, ConnectTimeout: neverTimeout}}, Options{})
				t.Cleanup(m.CloseAll)
				m.Start()
				if !mcptestutil.Eventually(mcptestutil.HangBound(10*time.Second), func() bool { return seen.Load() >= tc.requests }) {
					t.Fatalf("the server saw %d requests, want %d", seen.Load(), tc.requests)
				}
				time.Sleep(100 * time.Millisecond) // the client is now waiting
				if st, _ := m.Status("stuck"); st.State != StateConnecting {
					t.Fatalf("state %s", st.Summary())
				}
				// The server never answers and the timeouts are far
				// beyond the bound: the close returning at all shows it
				// did not wait for either.
				endsWithin(t, how, func() {
					if how == "CloseAll" {
						m.CloseAll()
					} else {
						_ = m.Close("stuck")
					}
				})
				if st, _ := m.Status("stuck"); st.State != StateClosed {
					t.Errorf("state %s, want closed", st.Summary())
				}
			})
		}
	}
}

// TestCloseConnectedServersThatHangIsBounded: connected HTTP and SSE
// servers that stop answering (an SSE stream that goes silent with a call
// in flight; a DELETE that hangs) close without waiting for them.
func TestCloseConnectedServersThatHangIsBounded(t *testing.T) {
	var stuck atomic.Bool
	release := make(chan struct{})
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Once stuck, nothing but the SSE stream's GET gets an answer.
			if stuck.Load() && r.Method != http.MethodGet {
				select {
				case <-r.Context().Done():
				case <-release:
				}
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	httpSrv := httptest.NewServer(wrap(mcpserver.NewStreamableHTTPServer(echoServer())))
	t.Cleanup(httpSrv.Close)
	sse := mcpserver.NewSSEServer(echoServer())
	sseSrv := httptest.NewServer(wrap(sse))
	t.Cleanup(sseSrv.Close)
	t.Cleanup(func() { close(release) })

	m := New([]ServerConfig{
		{Name: "web", Transport: TransportHTTP, URL: httpSrv.URL + "/mcp", Timeout: neverTimeout},
		{Name: "old", Transport: TransportSSE, URL: sseSrv.URL + "/sse", Timeout: neverTimeout},
	}, Options{})
	t.Cleanup(m.CloseAll)
	m.Start()
	waitReady(t, m, "web", 5*time.Second)
	waitReady(t, m, "old", 5*time.Second)
	stuck.Store(true)
	// Calls in flight that will never be answered.
	for _, tool := range []string{"web__echo", "old__echo"} {
		go func() { _, _ = m.Call(t.Context(), tool, map[string]any{"message": "x"}, "") }()
	}
	time.Sleep(200 * time.Millisecond)
	// The servers answer nothing more, and the calls' timeout is far
	// beyond the bound: CloseAll returning at all shows it waited for
	// neither the calls nor the DELETE.
	endsWithin(t, "CloseAll", m.CloseAll)
}
