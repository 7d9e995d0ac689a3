package exactjson

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"
)

// Ollama's API client (v0.17.4) decodes a tool call's arguments into
// float64s, rounding an integer past 2^53 that the model wrote (and
// Ollama sent) exactly. ExactToolCalls reads the same stream as it passes
// to the client and keeps each call's arguments as written; the session
// puts them back into the calls the client decoded (ExactCalls.Fix).

// maxExactLine bounds the line ExactToolCalls holds while it reads it (the
// API client's own limit is smaller); past it, calls keep the client's
// reading.
const maxExactLine = 16 << 20

// ExactToolCalls wraps the HTTP transport of an Ollama API client so that
// the tool calls of a session's chat keep their arguments' numbers exact
// (json.Number). Other requests pass through untouched.
func ExactToolCalls(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	if _, ok := rt.(exactTransport); ok {
		return rt // wrapped already: a body is read for the calls once
	}
	return exactTransport{rt}
}

// exactTransport is ExactToolCalls' transport: a chat request made with
// an ExactCalls in its context has its response read for them.
type exactTransport struct{ next http.RoundTripper }

// exactKey is the context key of a chat's ExactCalls.
type exactKey struct{}

// RoundTrip passes req on, and a chat's response body through exactBody.
func (t exactTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	x, _ := req.Context().Value(exactKey{}).(*ExactCalls)
	if err != nil || x == nil || !strings.HasSuffix(req.URL.Path, "/api/chat") {
		return res, err
	}
	res.Body = &exactBody{ReadCloser: res.Body, x: x}
	return res, nil
}

// ExactCalls are the tool calls of one chat request, with their
// arguments decoded exactly, in the order the stream sent them.
type ExactCalls struct {
	mu     sync.Mutex
	calls  []exactCall
	broken bool // a line was too long or unreadable: Fix does nothing
}

// exactCall is one tool call as the stream sent it; ok is false when
// its arguments were not an object latch could read.
type exactCall struct {
	name string
	args api.ToolCallFunctionArguments
	ok   bool
}

// WithExactCalls is ctx carrying a new ExactCalls for ExactToolCalls to
// fill.
func WithExactCalls(ctx context.Context) (context.Context, *ExactCalls) {
	x := &ExactCalls{}
	return context.WithValue(ctx, exactKey{}, x), x
}

// line records the tool calls of one line of the stream.
func (x *ExactCalls) line(b []byte) {
	var l struct {
		Message struct {
			ToolCalls []struct {
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !bytes.Contains(b, []byte(`"tool_calls"`)) {
		return
	}
	if json.Unmarshal(b, &l) != nil {
		x.broken = true
		return
	}
	for _, c := range l.Message.ToolCalls {
		args, err := ExactToolArguments(c.Function.Arguments)
		x.calls = append(x.calls, exactCall{name: c.Function.Name, args: args, ok: err == nil})
	}
}

// Fix gives the calls of one reply (as the client decoded them, in
// order) the arguments recorded for them: the next ones in the stream.
// A call whose recorded name or keys differ keeps the client's.
func (x *ExactCalls) Fix(calls []api.ToolCall) {
	if x == nil || len(calls) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.broken || len(x.calls) < len(calls) {
		x.broken = true
		return
	}
	for i := range calls {
		e := x.calls[i]
		if e.ok && e.name == calls[i].Function.Name && sameKeys(e.args, calls[i].Function.Arguments) {
			calls[i].Function.Arguments = e.args
		}
	}
	x.calls = x.calls[len(calls):]
}

// sameKeys says whether a and b have the same keys in the same order.
func sameKeys(a, b api.ToolCallFunctionArguments) bool {
	if a.Len() != b.Len() {
		return false
	}
	var ka []string
	for k := range a.All() {
		ka = append(ka, k)
	}
	i := 0
	for k := range b.All() {
		if ka[i] != k {
			return false
		}
		i++
	}
	return true
}

// exactBody passes a chat's response through, recording the tool calls
// of each whole line as it goes by.
type exactBody struct {
	io.ReadCloser
	x       *ExactCalls
	pending []byte
	skip    bool // the line under way is too long: dropped
}

func (b *exactBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			b.hold(data)
			break
		}
		b.hold(data[:i])
		if !b.skip {
			b.x.line(b.pending)
		}
		b.pending, b.skip, data = b.pending[:0], false, data[i+1:]
	}
	if err == io.EOF && len(b.pending) > 0 && !b.skip {
		b.x.line(b.pending) // a last line with no newline
		b.pending = b.pending[:0]
	}
	return n, err
}

// hold keeps part of the line under way, unless it grew too long.
func (b *exactBody) hold(part []byte) {
	if b.skip {
		return
	}
	if len(b.pending)+len(part) > maxExactLine {
		b.skip, b.pending = true, b.pending[:0]
		b.x.mu.Lock()
		b.x.broken = true
		b.x.mu.Unlock()
		return
	}
	b.pending = append(b.pending, part...)
}
