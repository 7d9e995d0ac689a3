package gateway

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// BenchmarkHTTPPlainCall is one tools/call of the 2026-07-28 stateless
// form, as mcp-go's clients send it, through all of latch serve
// --listen's handling of a request (the guard, session tracking, the
// task router) to a tool handler that answers at once, and back: the
// request's handling without the gate, the log or the upstream call.
// "mcp-go" is the request handled by mcp-go's streamable HTTP server, as
// it was before the plain calls were answered in front of it; "plain"
// is the same request answered by plainHTTP (httpfast.go), the same
// bytes. Compare the two in one run: the gain per request. The requests
// come from 50 clients in turn, as in TestServeFiftyClients: each names
// itself in its _meta.
func BenchmarkHTTPPlainCall(b *testing.B) {
	const tool, clients = "mem__read_graph", 50
	bodies := make([][]byte, clients)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},`+
			`"io.modelcontextprotocol/clientInfo":{"name":"bench-%02d","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"`+tool+`"}}`, i)
	}
	handler := func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText(`{"entities":[],"relations":[]}`), nil
	}
	g := &Gateway{srv: server.NewMCPServer(serverName, "", server.WithToolCapabilities(true), server.WithRecovery()),
		served: map[string]string{tool: ""}, plain: handler}
	g.srv.AddTool(mcpgo.NewTool(tool), handler)
	tokens, err := newTokenTable("bench-token", nil)
	if err != nil {
		b.Fatal(err)
	}
	mcpSrv := server.NewStreamableHTTPServer(g.srv, server.WithEndpointPath(Path))
	header := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
	var want []byte
	for _, c := range []struct {
		name string
		next http.Handler
	}{
		{"mcp-go", mcpSrv},
		{"plain", g.plainHTTP(mcpSrv)},
	} {
		h := benchFront(newSessions(Limits{Sessions: 8, SessionIdle: time.Hour}), g, c.next, tokens)
		b.Run(c.name, func(b *testing.B) {
			w := benchPost(b, h, "bench-token", header, bodies...)
			// Both answer the same bytes.
			if want == nil {
				want = bytes.Clone(w.body)
			} else if !bytes.Equal(w.body, want) {
				b.Fatalf("answered\n%s\nmcp-go answered\n%s", w.body, want)
			}
		})
	}
}
