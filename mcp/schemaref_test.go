package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
)

// TestSchemaNetworkRefNeverFetched: a tool whose schema names a network
// $ref (the conformance suite's json-schema-ref-no-deref) is listed and
// called on either era with the $ref left as written, and nothing ever
// fetches it.
func TestSchemaNetworkRefNeverFetched(t *testing.T) {
	var fetched atomic.Int32
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetched.Add(1)
		_, _ = w.Write([]byte(`{"type":"object"}`))
	}))
	t.Cleanup(canary.Close)
	ref := canary.URL + "/profile-schema.json"
	srv := mcpserver.NewMCPServer("refs", "1.0.0")
	srv.AddTool(mcpgo.NewToolWithRawSchema("lookup", "look a user up", json.RawMessage(
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",`+
			`"$defs":{"userId":{"type":"string","pattern":"^[a-z0-9-]+$"}},`+
			`"properties":{"id":{"$ref":"#/$defs/userId"},"profile":{"$ref":"`+ref+`"}},"required":["id"]}`)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("found"), nil
		})
	h := servertest.NewTestStreamableHTTPServer(srv)
	t.Cleanup(h.Close)
	for _, era := range []string{ProtocolLegacy, ProtocolModern} {
		m, _ := startFake(t, Options{}, ServerConfig{Name: "refs", Transport: TransportHTTP, URL: h.URL + "/mcp", Protocol: era})
		waitReady(t, m, "refs", 10*time.Second)
		tool, ok := m.Lookup("refs__lookup")
		if !ok {
			t.Fatalf("%s: refs__lookup not listed", era)
		}
		props, _ := tool.InputSchema["properties"].(map[string]any)
		profile, _ := props["profile"].(map[string]any)
		if profile["$ref"] != ref || len(profile) != 1 {
			t.Fatalf("%s: the profile's schema is %v, want the $ref as written", era, profile)
		}
		mustCall(t, m, "refs__lookup", map[string]any{"id": "ada"})
	}
	if n := fetched.Load(); n != 0 {
		t.Fatalf("the network $ref was fetched %d times", n)
	}
}
