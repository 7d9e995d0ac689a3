package cli

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// tlogWriter writes to the test's log, a line a write.
type tlogWriter struct{ t *testing.T }

func (w tlogWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// proxySeq numbers the requests through the token proxies.
var proxySeq atomic.Int64

// proxyLog logs each request through the token proxy, for a scenario
// that fails on a busy machine: when it came, on which connection, its
// Mcp-Method and Mcp-Name headers; when its answer ended, its status and
// size, whether the client had gone, and how reading its body ended.
// With latch's own log (its stderr, in the test's log too) and the
// suite's output, it says which side stalled.
func proxyLog(t *testing.T, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := proxySeq.Add(1)
		body := &peekBody{ReadCloser: r.Body}
		r.Body = body
		start := time.Now()
		t.Logf("proxy #%d %s in: %s %s Mcp-Method=%q Mcp-Name=%q conn %s", n, start.Format("15:04:05.000000"),
			r.Method, r.URL.Path, r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name"), r.RemoteAddr)
		rw := &countingWriter{ResponseWriter: w}
		defer func() {
			t.Logf("proxy #%d %s out: status %d, %d bytes, %v, client gone: %v, body %q (read until %v)", n,
				time.Now().Format("15:04:05.000000"), rw.status, rw.n, time.Since(start).Round(time.Microsecond),
				r.Context().Err() != nil, body.head, body.err)
		}()
		next.ServeHTTP(rw, r)
	})
}

// countingWriter counts what an answer wrote, and keeps its status.
type countingWriter struct {
	http.ResponseWriter
	status, n int
}

// WriteHeader keeps the status.
func (w *countingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write counts.
func (w *countingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}

// Unwrap gives http.ResponseController (the proxy's flushes) the writer.
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// peekBody keeps the first bytes read of a body, and how reading ended.
type peekBody struct {
	io.ReadCloser
	head []byte
	err  error
}

func (b *peekBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if len(b.head) < 100 {
		b.head = append(b.head, p[:min(n, 100-len(b.head))]...)
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

// An answer that comes back while the token proxy has yet to see the end
// of the client's body (its transport reads it once more after sending
// it) reaches the client whole. The race is made sure here: the proxy's
// last read of the body waits until the answer's start has been flushed
// to the client, and the server answers the rest only once that read
// ended. When the proxy streamed the client's body as it came, that read
// found the body closed by Go's server (an answer had started), the
// transport closed its connection, and the client got the first event
// only: what made conformance scenarios wait out their 30 s on a busy
// machine.
func TestTokenProxyPassesAnAnswerThatBeatsTheBodysEnd(t *testing.T) {
	ended := make(chan error, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Errorf("upstream: reading the body: %v", err)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		select {
		case err := <-ended:
			if err != io.EOF {
				<-r.Context().Done() // the proxy gives up the connection
				return
			}
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "data: second\n\n")
	}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	flushed := make(chan struct{})
	late := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = &lateEnd{ReadCloser: r.Body, left: r.ContentLength, flushed: flushed, ended: ended}
			next.ServeHTTP(&flushSignal{ResponseWriter: w, flushed: flushed}, r)
		})
	}
	proxy := httptest.NewServer(tokenProxyHandler(t, target, "token", late))
	defer proxy.Close()
	resp, err := http.Post(proxy.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != "data: first\n\ndata: second\n\n" {
		t.Fatalf("the answer through the proxy: %q, %v", got, err)
	}
}

// lateEnd is a request body whose read past its last byte waits until
// the answer's start was flushed, then says how it ended.
type lateEnd struct {
	io.ReadCloser
	left    int64
	flushed <-chan struct{}
	ended   chan<- error
}

func (b *lateEnd) Read(p []byte) (int, error) {
	if b.left > 0 {
		n, err := b.ReadCloser.Read(p[:min(int64(len(p)), b.left)])
		b.left -= int64(n)
		return n, err
	}
	select {
	case <-b.flushed:
	case <-time.After(mcptestutil.HangBound(time.Minute)):
	}
	n, err := b.ReadCloser.Read(p)
	select {
	case b.ended <- err:
	default:
	}
	return n, err
}

// flushSignal closes flushed after the first flush of the answer.
type flushSignal struct {
	http.ResponseWriter
	flushed chan struct{}
	once    sync.Once
}

// Flush flushes, then signals.
func (w *flushSignal) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
	w.once.Do(func() { close(w.flushed) })
}
