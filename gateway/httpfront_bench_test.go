package gateway

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// BenchmarkHTTPFront is what latch serve --listen does to each request
// before mcp-go sees it, and nothing else: the guard (Host, token, body
// bound), the session tracking and the task router, in front of a handler
// that reads the body as mcp-go does. One op is one tools/call of the
// 2026-07-28 stateless form, as mcp-go's clients send it ("stateless"),
// or of a 2025 session ("session"). Compare ns/op and allocs/op with the
// build before a change; the whole call is BenchmarkGatewayHTTP.
func BenchmarkHTTPFront(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"mem__read_graph"}}`)
	reply := []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{}"}]}}`)
	mcpGo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			b.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	})
	tokens, err := newTokenTable("bench-token", nil)
	if err != nil {
		b.Fatal(err)
	}
	ss := newSessions(Limits{Sessions: 8, SessionIdle: time.Hour})
	id := ss.Generate()
	ss.leave(id)
	mux := http.NewServeMux()
	mux.Handle(Path, ss.track((&Gateway{}).taskHTTP(mcpGo)))
	h := guard(mux, "127.0.0.1:8765", "127.0.0.1:0", tokens)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		header map[string]string
	}{
		{"stateless", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "mem__read_graph"}},
		{"session", map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": id}},
	} {
		header := http.Header{}
		header.Set("Content-Type", "application/json")
		header.Set("Accept", "application/json, text/event-stream")
		header.Set("Authorization", "Bearer bench-token")
		for k, v := range c.header {
			header.Set(k, v)
		}
		u := &url.URL{Scheme: "http", Host: "127.0.0.1:8765", Path: Path}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			w := &benchWriter{header: http.Header{}}
			for b.Loop() {
				r := (&http.Request{Method: http.MethodPost, URL: u, Host: u.Host, Header: header, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
					ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body))}).WithContext(ctx)
				w.reset()
				h.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					b.Fatalf("%d %s", w.code, w.body)
				}
			}
		})
	}
}

// benchWriter is a ResponseWriter kept from one op to the next.
type benchWriter struct {
	header http.Header
	code   int
	body   []byte
}

func (w *benchWriter) Header() http.Header { return w.header }
func (w *benchWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *benchWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, p...)
	return len(p), nil
}

func (w *benchWriter) reset() {
	clear(w.header)
	w.code, w.body = 0, w.body[:0]
}
