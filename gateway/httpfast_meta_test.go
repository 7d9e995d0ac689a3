package gateway

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A plain call over HTTP is answered with the bytes mcp-go answers with,
// whether the tool's result has a _meta of its own (kept, and latch named
// in it) or none (latch's alone, encoded once for every call).
func TestPlainHTTPResultMetaIsMCPGos(t *testing.T) {
	const tool = "t"
	for _, c := range []struct {
		name string
		meta *mcpgo.Meta
	}{
		{"none", nil},
		{"its own", mcpgo.NewMetaFromMap(map[string]any{"example.com/k": "v"})},
	} {
		t.Run(c.name, func(t *testing.T) {
			handler := func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				r := mcpgo.NewToolResultText("hi")
				if c.meta != nil {
					r.Meta = mcpgo.NewMetaFromMap(c.meta.AdditionalFields)
				}
				return r, nil
			}
			g := &Gateway{srv: server.NewMCPServer(serverName, "9.9", server.WithToolCapabilities(true), server.WithRecovery()),
				served: map[string]string{tool: ""}, plain: handler, o: Options{Version: "9.9"}}
			g.srv.AddTool(mcpgo.NewTool(tool), handler)
			mcpSrv := server.NewStreamableHTTPServer(g.srv, server.WithEndpointPath(Path))
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
				`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"t"}}`
			answer := func(h http.Handler) string {
				r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8765"+Path, strings.NewReader(body))
				for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
					"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool} {
					r.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				b, _ := io.ReadAll(w.Result().Body)
				return w.Result().Status + " " + w.Result().Header.Get("Content-Type") + "\n" + string(b)
			}
			want := answer(mcpSrv)
			for range 2 { // the second time with latch's _meta encoded already
				runs := g.plainRuns.Load()
				if got := answer(g.plainHTTP(mcpSrv)); got != want {
					t.Errorf("answered\n%s\nmcp-go answered\n%s", got, want)
				}
				if g.plainRuns.Load() != runs+1 {
					t.Fatal("the call went to mcp-go, not the plain path")
				}
			}
			if !bytes.Contains([]byte(want), []byte(`"io.modelcontextprotocol/serverInfo":{"name":"latch","version":"9.9"}`)) ||
				c.meta != nil && !bytes.Contains([]byte(want), []byte(`"example.com/k":"v"`)) {
				t.Errorf("mcp-go's answer does not name latch beside the tool's _meta: %s", want)
			}
		})
	}
}
