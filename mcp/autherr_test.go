package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// The tests in this file check that only an HTTP 401 from an HTTP
// transport means "auth expired", never a "401" in a server's words.

const msg401 = "file report-401.txt not found (HTTP 401 upstream)"

// server401 is an mcp-go server whose tool fails with msg401, as an
// error of the request and as an isError result.
func server401() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("srv-401", "1.0", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("find"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return nil, errors.New(msg401)
	})
	s.AddTool(mcpgo.NewTool("find_result"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultError(msg401), nil
	})
	return s
}

// checkStillConnected calls tool, expects an error mentioning 401, and
// checks the server stays connected and callable.
func checkStillConnected(t *testing.T, m *Manager, server, tool, again string) {
	t.Helper()
	_, err := m.Call(context.Background(), tool, nil, "")
	if err == nil || !strings.Contains(err.Error(), "report-401.txt") {
		t.Fatalf("%s: err = %v, want the server's error", tool, err)
	}
	if errors.Is(err, ErrNotConnected) || strings.Contains(err.Error(), "authorization expired") {
		t.Fatalf("%s: a tool error was taken for a 401: %v", tool, err)
	}
	// Give a wrongly started disconnect time to show.
	time.Sleep(200 * time.Millisecond)
	if st, _ := m.Status(server); st.State != StateConnected {
		t.Fatalf("%s after a tool error with 401 in it: %s", server, st.Summary())
	}
	if _, err := m.Call(context.Background(), again, nil, ""); err != nil && !strings.Contains(err.Error(), "report-401.txt") {
		t.Fatalf("calling %s again: %v", again, err)
	}
}

func TestToolErrorWith401IsNotAuthExpired(t *testing.T) {
	t.Run("inprocess", func(t *testing.T) {
		m, _ := startFake(t, Options{}, ServerConfig{Name: "ip", Transport: TransportInProcess, InProcess: server401()})
		waitReady(t, m, "ip", 5*time.Second)
		checkStillConnected(t, m, "ip", "ip__find", "ip__find")
		if res, err := m.Call(context.Background(), "ip__find_result", nil, ""); err != nil || !res.IsError {
			t.Fatalf("find_result: %+v %v", res, err)
		}
		if st, _ := m.Status("ip"); st.State != StateConnected {
			t.Fatalf("after an isError result with 401 in it: %s", st.Summary())
		}
	})
	t.Run("stdio", func(t *testing.T) {
		m, _ := startFake(t, Options{}, fakeServer(t, "fake", "-fail-with", msg401))
		waitReady(t, m, "fake", 10*time.Second)
		checkStillConnected(t, m, "fake", "fake__rpc_fail", "fake__echo")
	})
	t.Run("streamable HTTP, a JSON-RPC error", func(t *testing.T) {
		srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(server401()))
		t.Cleanup(srv.Close)
		m, _ := startFake(t, Options{}, ServerConfig{Name: "web", Transport: TransportHTTP, URL: srv.URL + "/mcp"})
		waitReady(t, m, "web", 5*time.Second)
		checkStillConnected(t, m, "web", "web__find", "web__find")
	})
}

// TestSSEUnauthorizedMeansAuthExpired: an HTTP 401 still means auth
// expired on SSE too (streamable HTTP: TestUnauthorizedMeansAuthExpired).
func TestSSEUnauthorizedMeansAuthExpired(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	m, _ := startFake(t, Options{}, ServerConfig{Name: "old", Transport: TransportSSE, URL: srv.URL + "/sse", Token: "stale"})
	st := waitState(t, m, "old", StateAuthExpired, 5*time.Second)
	if !strings.Contains(st.Summary(), "/token old") {
		t.Fatalf("summary %q", st.Summary())
	}
}
