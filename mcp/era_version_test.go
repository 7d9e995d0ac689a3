package mcp

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"latch/mcp/mcptestutil"

	"github.com/mark3labs/mcp-go/server/servertest"
)

// TestEraRetriesARefusedSupportedVersion: a stateless server whose first
// answer refuses the protocol version (-32022) while naming that version
// as supported (a node restarting behind a balancer, the conformance
// suite's request-metadata) is asked again at that version, and latch
// speaks 2026-07-28 with it: not the handshake era it would have fallen
// back to.
func TestEraRetriesARefusedSupportedVersion(t *testing.T) {
	h := servertest.NewTestStreamableHTTPServer(mcptestutil.InputServer())
	t.Cleanup(h.Close)
	var refused atomic.Bool
	inner := h.Config.Handler
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && refused.CompareAndSwap(false, true) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"Unsupported protocol version",` +
				`"data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`))
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	m, _ := startFake(t, Options{}, ServerConfig{Name: "lb", Transport: TransportHTTP, URL: front.URL + "/mcp"})
	st := waitReady(t, m, "lb", 10*time.Second)
	if !refused.Load() {
		t.Fatal("the first request was not refused")
	}
	if st.ProtocolVersion != ProtocolModern {
		t.Fatalf("protocol %q after one refusal of a supported version, want %q", st.ProtocolVersion, ProtocolModern)
	}
}
