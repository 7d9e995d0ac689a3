package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/session"
)

// secret is a credential latch holds (the token of a server it does not
// connect); the hostile server plants it, with terminal escapes, in all
// it sends.
const secret = "gw-secret-4f7a91c2"

// hostileServers are the hostile server and the server whose token is
// secret, so that latch knows it for a credential.
func hostileServers() []session.ServerConfig {
	return []session.ServerConfig{
		{Name: "hostile", Transport: "inprocess", InProcess: mcptestutil.HostileServer(mcptestutil.Plant(secret), 4096)},
		{Name: "vault", Transport: "http", URL: "https://vault.example/mcp", Token: secret, Disabled: true},
	}
}

// progressServer's tool "report" sends a progress notification with
// message, then runs until seen is closed (the client has it).
func progressServer(message string, seen <-chan struct{}) *server.MCPServer {
	s := server.NewMCPServer("reporter", "1")
	s.AddTool(mcp.NewTool("report"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress),
				map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": 1, "total": 2, "message": message})
		}
		select {
		case <-seen:
		case <-ctx.Done():
		}
		return mcp.NewToolResultText("done"), nil
	})
	return s
}

// A client's call that carries a progress token gets the upstream
// server's progress as notifications/progress under its own token, the
// message redacted and inert.
func TestProgressPassedThrough(t *testing.T) {
	seen := make(chan struct{})
	var once sync.Once
	r := newRig(t, gateway.Options{}, append(hostileServers(),
		session.ServerConfig{Name: "rep", Transport: "inprocess", InProcess: progressServer("progress "+mcptestutil.Plant(secret), seen)})...)
	var mu sync.Mutex
	var got []map[string]any
	c := r.connect(t, "watcher", func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			mu.Lock()
			got = append(got, n.Params.AdditionalFields)
			mu.Unlock()
			once.Do(func() { close(seen) })
		}
	})
	// Should no notification come, the call ends with the test.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "rep__report"
	req.Params.Meta = &mcp.Meta{ProgressToken: "client-token-7"}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no progress notification")
	}
	p := got[0]
	raw, _ := json.Marshal(got)
	if p["progressToken"] != "client-token-7" || p["progress"] != float64(1) || p["total"] != float64(2) {
		t.Errorf("progress notification %s; want the client's token, progress 1 of 2", raw)
	}
	msg, _ := p["message"].(string)
	if !strings.Contains(msg, "progress") || strings.Contains(string(raw), secret) || mcptestutil.FirstForbidden(msg) != "" {
		t.Errorf("progress message %q: want it passed on, the credential redacted, no escapes", msg)
	}
}
