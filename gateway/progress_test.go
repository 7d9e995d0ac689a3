package gateway_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

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

// A client's call that carries a progress token gets the upstream
// server's progress as notifications/progress under its own token, the
// message redacted and inert.
func TestProgressPassedThrough(t *testing.T) {
	r := newRig(t, gateway.Options{}, hostileServers()...)
	var mu sync.Mutex
	var got []map[string]any
	c := r.connect(t, "watcher", func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			mu.Lock()
			got = append(got, n.Params.AdditionalFields)
			mu.Unlock()
		}
	})
	var req mcp.CallToolRequest
	req.Params.Name = "hostile__progress"
	req.Params.Meta = &mcp.Meta{ProgressToken: "client-token-7"}
	ctx := t.Context()
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	mcptestutil.WaitFor(t, 10*time.Second, "a progress notification", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) > 0
	})
	mu.Lock()
	defer mu.Unlock()
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
