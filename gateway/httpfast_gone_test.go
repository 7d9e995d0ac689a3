package gateway

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A client of the 2026-07-28 form that goes away during its call (closing
// the stream is how it cancels) is written nothing, by the plain path as
// by mcp-go: an answer written to a proxy dropping that connection could
// land on the connection's next request.
func TestHTTPPlainCallOfAClientGoneWritesNothing(t *testing.T) {
	const tool = "up__echo"
	var gone func()
	handler := func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		gone() // the client goes away while the call runs
		return mcpgo.NewToolResultText("echo"), nil
	}
	g := &Gateway{srv: server.NewMCPServer(serverName, "", server.WithToolCapabilities(true), server.WithRecovery()),
		served: map[string]string{tool: ""}, plain: handler}
	g.srv.AddTool(mcpgo.NewTool(tool), handler)
	mcpSrv := server.NewStreamableHTTPServer(g.srv, server.WithEndpointPath(Path))
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"` + tool + `"}}`)
	header := http.Header{}
	for k, v := range map[string]string{"Content-Type": "application/json", "Mcp-Protocol-Version": "2026-07-28",
		"Mcp-Method": "tools/call", "Mcp-Name": tool} {
		header.Set(k, v)
	}
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:8765", Path: Path}
	before := g.plainRuns.Load()
	for name, h := range map[string]http.Handler{"mcp-go": mcpSrv, "plain": g.plainHTTP(mcpSrv)} {
		ctx, cancel := context.WithCancel(context.Background())
		gone = cancel
		r := (&http.Request{Method: http.MethodPost, URL: u, Host: u.Host, Header: header, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body))}).WithContext(ctx)
		w := &benchWriter{header: http.Header{}}
		h.ServeHTTP(w, r)
		cancel()
		if len(w.body) != 0 {
			t.Errorf("%s wrote %s to a client gone", name, w.body)
		}
	}
	if g.plainRuns.Load() == before {
		t.Error("the plain path did not take the call")
	}
}
