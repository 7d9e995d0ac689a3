package gateway_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// richInput is an input schema with keywords beyond mcp-go's
// ToolInputSchema (type, properties, required, $defs,
// additionalProperties): 2020-12's $schema, prefixItems and
// unevaluatedProperties, a top-level oneOf and description, bounds, and a
// $ref left as it is.
const richInput = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"description":"what to pick","minProperties":1,"unevaluatedProperties":false,` +
	`"properties":{"n":{"type":"integer","minimum":1,"maximum":9},` +
	`"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}]},` +
	`"thing":{"$ref":"#/$defs/thing"}},"required":["n"],` +
	`"oneOf":[{"required":["pair"]},{"required":["thing"]}],"$defs":{"thing":{"enum":["a","b"]}}}`

// richOutput is an output schema with keywords mcp-go's parse drops.
const richOutput = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"description":"the pick","properties":{"picked":{"type":"string","enum":["a","b"]}},"required":["picked"]}`

// A tool's schemas are served by the gateway as its server wrote them,
// every keyword kept: not cut down to what mcp-go's client parses.
func TestGatewayServesSchemasAsWritten(t *testing.T) {
	up := server.NewMCPServer("up", "1", server.WithToolCapabilities(true))
	tool := mcpgo.NewToolWithRawSchema("pick", "picks one", json.RawMessage(richInput))
	tool.RawOutputSchema = json.RawMessage(richOutput)
	up.AddTool(tool, func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultStructured(map[string]any{"picked": "a"}, "a"), nil
	})
	ol := ollamatest.New(ollamatest.Model{Name: "m", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: ol.Host(), Model: "m", NonInteractive: true,
		Servers: []session.ServerConfig{{Name: "up", Transport: "inprocess", InProcess: up}},
		Policy:  permissions.Policy{ServerAllow: map[string][]string{"up": {"pick"}}}})
	t.Cleanup(sess.Close)
	sess.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(30*time.Second))
	defer cancel()
	sess.WaitServers(ctx)
	mcptestutil.WaitFor(t, 10*time.Second, "up__pick listed", func() bool {
		tools, _ := sess.Tools("")
		return len(tools) == 1
	})
	g := gateway.New(gateway.Options{Session: sess})

	// What any client gets: the raw tools/list result.
	tr := transport.NewInProcessTransport(g.MCPServer())
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	send := func(id int64, method string, params any) json.RawMessage {
		t.Helper()
		resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcpgo.NewRequestId(id),
			Method: method, Params: params})
		if err != nil || resp.Error != nil {
			t.Fatalf("%s: %v %+v", method, err, resp)
		}
		return resp.Result
	}
	send(1, "initialize", map[string]any{"protocolVersion": mcpgo.LATEST_LEGACY_PROTOCOL_VERSION,
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(send(2, "tools/list", map[string]any{}), &list); err != nil {
		t.Fatal(err)
	}
	var wantIn, wantOut map[string]any
	_ = json.Unmarshal([]byte(richInput), &wantIn)
	_ = json.Unmarshal([]byte(richOutput), &wantOut)
	found := false
	for _, tool := range list.Tools {
		if tool.Name != "up__pick" {
			continue
		}
		found = true
		if !reflect.DeepEqual(tool.InputSchema, wantIn) {
			t.Errorf("input schema served:\n %v\nwritten:\n %v", tool.InputSchema, wantIn)
		}
		if !reflect.DeepEqual(tool.OutputSchema, wantOut) {
			t.Errorf("output schema served:\n %v\nwritten:\n %v", tool.OutputSchema, wantOut)
		}
	}
	if !found {
		t.Fatalf("up__pick is not served: %+v", list.Tools)
	}
}
