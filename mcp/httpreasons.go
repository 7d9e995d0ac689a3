package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"
)

// An HTTP server's failed connect is told from what it answered, not from
// mcp-go's words: mcp-go calls every 4xx to the handshake's POST "likely a
// legacy SSE server" (most often the path is wrong), and its SSE transport
// waits out the connect timeout on a streamable server's event stream.
// httpAnswers keeps what the server answered during the connect, and
// httpReason says what that means, naming the URL (host and path: no
// query, no credentials).

// httpAnswers is the last answer of the server to each method (POST, GET)
// during one connection. Safe for concurrent use.
type httpAnswers struct {
	mu   sync.Mutex
	last map[string]httpAnswer
}

// httpAnswer is one response, as far as a reason needs it.
type httpAnswer struct {
	status      int
	contentType string // the media type, without parameters
}

func newHTTPAnswers() *httpAnswers { return &httpAnswers{last: map[string]httpAnswer{}} }

// to is the last answer to method, if there was one.
func (a *httpAnswers) to(method string) (httpAnswer, bool) {
	if a == nil {
		return httpAnswer{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ans, ok := a.last[method]
	return ans, ok
}

// recordingTransport notes each response's status in rec, on top of
// everything else (it sees what the caller sees: after the auth retry).
type recordingTransport struct {
	base http.RoundTripper
	rec  *httpAnswers
}

// RoundTrip sends r and notes the answer.
func (t *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
		t.rec.mu.Lock()
		t.rec.last[r.Method] = httpAnswer{status: resp.StatusCode, contentType: strings.TrimSpace(strings.ToLower(ct))}
		t.rec.mu.Unlock()
	}
	return resp, err
}

// shownURL is a server URL as a reason names it: host and path, without
// the scheme's credentials or the query (either may hold a secret).
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the server's URL"
	}
	return u.Host + u.Path
}

// httpReason says why an HTTP or SSE server's connect failed, from what it
// answered, or "" when there is nothing better to say than err. started
// says the transport started: an SSE stream had sent its endpoint.
func httpReason(err error, cfg ServerConfig, answers *httpAnswers, started bool) string {
	at := shownURL(cfg.URL)
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Sprintf("nothing is listening at %s (connection refused): is the server running, and is the port right?", at)
	}
	if transportName(cfg.Transport) == TransportSSE {
		return sseReason(at, answers, started)
	}
	post, ok := answers.to(http.MethodPost)
	if !ok || !errors.Is(err, transport.ErrLegacySSEServer) {
		return ""
	}
	switch post.status {
	case http.StatusNotFound:
		return fmt.Sprintf("%s answered 404 Not Found to the handshake: the path is probably wrong "+
			"(see the server's docs; it is often /mcp)", at)
	case http.StatusMethodNotAllowed:
		return fmt.Sprintf("%s answered 405 Method Not Allowed to the handshake's POST: a legacy SSE server "+
			"answers so; if it is one, set \"transport\": \"sse\" with its SSE URL (often /sse)", at)
	}
	return fmt.Sprintf("%s answered %d %s to the handshake: check the path, and whether it is a legacy SSE server "+
		"(\"transport\": \"sse\")", at, post.status, http.StatusText(post.status))
}

// sseReason is httpReason for a server configured as legacy SSE.
func sseReason(at string, answers *httpAnswers, started bool) string {
	get, ok := answers.to(http.MethodGet)
	if !ok || started {
		return ""
	}
	const streamable = "set \"transport\": \"http\" (or leave it out)"
	switch {
	case get.status == http.StatusNotFound:
		return fmt.Sprintf("%s answered 404 Not Found to the SSE stream's GET: the path is probably wrong "+
			"(see the server's docs; it is often /sse)", at)
	case get.status == http.StatusMethodNotAllowed || get.status == http.StatusBadRequest:
		return fmt.Sprintf("%s answered %d %s to the SSE stream's GET, as a streamable HTTP server does: %s",
			at, get.status, http.StatusText(get.status), streamable)
	case get.status == http.StatusOK && get.contentType == "text/event-stream":
		return fmt.Sprintf("%s opened an event stream but never said where to send messages (no endpoint event), "+
			"as a streamable HTTP server does: %s", at, streamable)
	case get.status == http.StatusOK && get.contentType != "text/event-stream":
		return fmt.Sprintf("%s answered the SSE stream's GET with %s, not an event stream: check the path, "+
			"or if it is a streamable HTTP server, %s", at, get.contentType, streamable)
	}
	return ""
}
