package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkHTTPFront is what latch serve --listen does to each request
// before mcp-go sees it, and nothing else: the guard (Host, token, body
// bound), the session tracking and the task router, in front of a handler
// that reads the body as mcp-go does. One op is one tools/call of the
// 2026-07-28 stateless form, as mcp-go's clients send it ("stateless"),
// or of a 2025 session ("session"), with the shared token; or stateless
// with a token of a client the config names ("named_client"). Compare ns/op and allocs/op with the
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
	// The named clients' tokens are in a file, stat'ed on each request
	// (and hashed too while it is younger than racyWindow: not here).
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	file := filepath.Join(b.TempDir(), "clients.json")
	if err := os.WriteFile(file, []byte(`{"ci-bot":"ci-token","editor":"editor-token"}`), 0o600); err != nil {
		b.Fatal(err)
	}
	shared, err := newTokenTable("bench-token", nil)
	if err != nil {
		b.Fatal(err)
	}
	named, err := newTokenTable("bench-token", &ClientTokens{Load: func() (map[string]string, []string, error) {
		var m map[string]string
		raw, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(raw, &m)
		}
		return m, []string{file}, err
	}})
	if err != nil {
		b.Fatal(err)
	}
	ss := newSessions(Limits{Sessions: 8, SessionIdle: time.Hour})
	id := ss.Generate()
	ss.leave(id)
	stateless := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "mem__read_graph"}
	for _, c := range []struct {
		name, token string
		tokens      *tokenTable
		header      map[string]string
	}{
		{"stateless", "bench-token", shared, stateless},
		{"session", "bench-token", shared, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": id}},
		{"named_client", "editor-token", named, stateless},
	} {
		h := benchFront(ss, &Gateway{}, mcpGo, c.tokens)
		b.Run(c.name, func(b *testing.B) { benchPost(b, h, c.token, c.header, body) })
	}
}

// benchFront is latch serve --listen's handling of a request in front
// of next, as Serve builds it: the guard (with tokens), ss's session
// tracking and g's task router.
func benchFront(ss *sessions, g *Gateway, next http.Handler, tokens *tokenTable) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, ss.track(g.taskHTTP(next)))
	return guard(mux, "127.0.0.1:8765", "127.0.0.1:0", tokens)
}

// benchPost posts bodies, in turn, to h (latch serve --listen's handling of a
// request, from the guard on) once an op, with token and header as an
// MCP client sends them, failing on an answer other than 200; it
// returns the writer holding the last answer.
func benchPost(b *testing.B, h http.Handler, token string, header map[string]string, bodies ...[]byte) *benchWriter {
	b.Helper()
	hd := http.Header{}
	hd.Set("Content-Type", "application/json")
	hd.Set("Accept", "application/json, text/event-stream")
	hd.Set("Authorization", "Bearer "+token)
	for k, v := range header {
		hd.Set(k, v)
	}
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:8765", Path: Path}
	ctx := context.Background()
	b.ReportAllocs()
	w := &benchWriter{header: http.Header{}}
	i := 0
	for b.Loop() {
		body := bodies[i%len(bodies)]
		i++
		r := (&http.Request{Method: http.MethodPost, URL: u, Host: u.Host, Header: hd, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body))}).WithContext(ctx)
		w.reset()
		h.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			b.Fatalf("%d %s", w.code, w.body)
		}
	}
	return w
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
