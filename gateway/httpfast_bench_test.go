package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	header := http.Header{}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Authorization": "Bearer bench-token", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool} {
		header.Set(k, v)
	}
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:8765", Path: Path}
	ctx := context.Background()
	var want []byte
	for _, c := range []struct {
		name string
		next http.Handler
	}{
		{"mcp-go", mcpSrv},
		{"plain", g.plainHTTP(mcpSrv)},
	} {
		ss := newSessions(Limits{Sessions: 8, SessionIdle: time.Hour})
		mux := http.NewServeMux()
		mux.Handle(Path, ss.track(g.taskHTTP(c.next)))
		h := guard(mux, "127.0.0.1:8765", "127.0.0.1:0", tokens)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			w := &benchWriter{header: http.Header{}}
			i := 0
			for b.Loop() {
				body := bodies[i%clients]
				i++
				r := (&http.Request{Method: http.MethodPost, URL: u, Host: u.Host, Header: header, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
					ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body))}).WithContext(ctx)
				w.reset()
				h.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					b.Fatalf("%d %s", w.code, w.body)
				}
			}
			// Both answer the same bytes.
			if want == nil {
				want = bytes.Clone(w.body)
			} else if !bytes.Equal(w.body, want) {
				b.Fatalf("answered\n%s\nmcp-go answered\n%s", w.body, want)
			}
		})
	}
}
