package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
)

// TestTaskPollSurvivesAServerError: a tasks/get the server answers with
// an internal error (-32603: busy, restarting a worker) is a failed poll,
// asked again, not "the server no longer knows the task": the task's
// result still comes. Only -32602 says the task is unknown.
func TestTaskPollSurvivesAServerError(t *testing.T) {
	ts := mcptestutil.NewTaskServer(600*time.Millisecond, "")
	var failed atomic.Int32
	mcpSrv := mcpserver.NewStreamableHTTPServer(ts.MCPServer, mcpserver.WithStateLess(true))
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Method == "tasks/get" && failed.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32603,"message":"busy"}}`))
			return
		}
		mcpSrv.ServeHTTP(w, r)
	}))
	t.Cleanup(h.Close)
	cfg := ServerConfig{Name: "tasks", Transport: TransportHTTP, URL: h.URL + "/mcp", Protocol: ProtocolLegacy,
		Timeout: 5 * time.Second}
	m, _ := startFake(t, Options{}, cfg)
	waitReady(t, m, "tasks", 10*time.Second)
	res, err := m.Call(context.Background(), "tasks__slow", nil, "c1")
	if err != nil || res.Text != "slow done 1" {
		t.Fatalf("slow after one failed poll: %v, %+v", err, res)
	}
	if failed.Load() < 2 {
		t.Fatalf("the server's error was never met: %d polls", failed.Load())
	}
}
