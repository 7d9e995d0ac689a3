package gateway_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/session"
)

// TestGatewayServesNoToolWithInvalidHeaderAnnotations: an upstream server
// (here in-process, where latch sends no Mcp-Param headers) listing a tool
// whose x-mcp-header annotation is invalid does not bring the gateway
// down (mcp-go's server panics on such a tool) nor hide the server's
// other tools: that tool alone is not served.
func TestGatewayServesNoToolWithInvalidHeaderAnnotations(t *testing.T) {
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcpgo.ListToolsRequest, res *mcpgo.ListToolsResult) {
		res.Tools = append(res.Tools, mcpgo.NewToolWithRawSchema("bad", "an empty header name",
			json.RawMessage(`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}`)))
	})
	up := server.NewMCPServer("up", "1", server.WithToolCapabilities(true), server.WithHooks(hooks))
	up.AddTool(mcpgo.NewTool("good", mcpgo.WithString("region", mcpgo.Description("where"))),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("good"), nil
		})
	r := newGateway(t, gateway.Options{}, true, session.Options{},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up})
	c := r.stdioClient(t, "t")
	list, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"latch_await_decision", "up__good"}) {
		t.Fatalf("served %v, want up__good and latch_await_decision", names)
	}
}
