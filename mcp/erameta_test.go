package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// TestEraRequestKeepsItsMeta: on 2026-07-28 a request latch sends itself
// (a task's tools/call) gets the era's _meta (version, capabilities,
// client) without losing what it carried: its progressToken, so the
// server's progress of the call reaches the card.
func TestEraRequestKeepsItsMeta(t *testing.T) {
	srv := mcpserver.NewMCPServer("meta", "1.0")
	srv.AddTool(mcpgo.NewTool("t"), func(ctx context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ok"), nil
	})
	m, _ := startFake(t, Options{}, ServerConfig{Name: "in", Transport: TransportInProcess, InProcess: srv, Protocol: ProtocolModern})
	waitReady(t, m, "in", 10*time.Second)
	_, c, err := m.target("in__t")
	if err != nil {
		t.Fatal(err)
	}
	req := c.eraRequest(transport.JSONRPCRequest{Method: "tools/call", Params: map[string]any{
		"name": "t", "_meta": map[string]any{"progressToken": "call-1"}}})
	meta, _ := req.Params.(map[string]any)["_meta"].(map[string]any)
	if meta["progressToken"] != "call-1" || meta[mcpgo.MetaKeyProtocolVersion] != ProtocolModern {
		t.Fatalf("_meta %v: want the progressToken kept beside the era's keys", meta)
	}
}
