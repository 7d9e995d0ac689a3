package mcp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
)

// TestHTTPConnectFailuresSayWhatIsWrong: an HTTP server's failed connect
// says what the server's answer means, naming the URL by host and path
// (never its query): a wrong path, nothing listening, a streamable server
// configured as legacy SSE and the other way round. Real servers: mcp-go's
// streamable and SSE servers over HTTP, and a closed port.
func TestHTTPConnectFailuresSayWhatIsWrong(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.NewStreamableHTTPServer(echoServer()))
	mux.Handle("/nostream", mcpserver.NewStreamableHTTPServer(echoServer(), mcpserver.WithDisableStreaming(true)))
	streamable := httptest.NewServer(mux)
	t.Cleanup(streamable.Close)
	sse := servertest.NewTestServer(echoServer())
	t.Cleanup(sse.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	_ = l.Close()
	host := func(u string) string { return strings.TrimPrefix(u, "http://") }

	for _, tc := range []struct {
		name, transport, url, want string
	}{
		{"wrong path", TransportHTTP, streamable.URL + "/wrong?key=s3cret",
			host(streamable.URL) + "/wrong answered 404 Not Found to the handshake: the path is probably wrong"},
		{"nothing listening", TransportHTTP, closed + "/mcp",
			"nothing is listening at " + host(closed) + "/mcp (connection refused)"},
		{"nothing listening, sse", TransportSSE, closed + "/sse",
			"nothing is listening at " + host(closed) + "/sse (connection refused)"},
		{"legacy SSE as http", TransportHTTP, sse.URL + "/sse",
			host(sse.URL) + `/sse answered 405 Method Not Allowed to the handshake's POST: a legacy SSE server answers so; if it is one, set "transport": "sse"`},
		{"sse, wrong path", TransportSSE, sse.URL + "/nope",
			host(sse.URL) + "/nope answered 404 Not Found to the SSE stream's GET: the path is probably wrong"},
		{"streamable as sse, no stream", TransportSSE, streamable.URL + "/nostream",
			host(streamable.URL) + `/nostream answered 405 Method Not Allowed to the SSE stream's GET, as a streamable HTTP server does: set "transport": "http"`},
		{"streamable as sse", TransportSSE, streamable.URL + "/mcp",
			host(streamable.URL) + `/mcp opened an event stream but never said where to send messages (no endpoint event), as a streamable HTTP server does: set "transport": "http"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := New([]ServerConfig{{Name: "web", Transport: tc.transport, URL: tc.url, ConnectTimeout: 2 * time.Second}}, Options{})
			t.Cleanup(m.CloseAll)
			if err := m.Connect("web"); err == nil {
				t.Fatal("connected")
			}
			st, _ := m.Status("web")
			if !strings.HasPrefix(st.Reason, tc.want) {
				t.Errorf("reason %q\nwant    %q…", st.Reason, tc.want)
			}
			if strings.Contains(st.Reason, "s3cret") || strings.Contains(st.Reason, "legacy SSE server\"") ||
				strings.Contains(st.Reason, "likely a legacy SSE") {
				t.Errorf("reason %q", st.Reason)
			}
		})
	}
}
