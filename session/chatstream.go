package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
	"github.com/ollama/ollama/version"

	"latch/session/exactjson"
)

// Reading a chat's stream of replies.
const (
	// chatLineStart is the line buffer a chat's stream starts with.
	chatLineStart = 64 << 10
	// chatLineMax is the longest line it reads: the api client's limit.
	chatLineMax = 8 * 1000 * 1000
)

// chatStream sends a chat request to Ollama and calls fn with each reply
// of its stream, as api.Client.Chat does (api/client.go, stream, v0.17.4:
// the same request, headers, errors and line limit) but with a line
// buffer that starts at 64 KB and grows only for a longer line.
//
// The api client makes an 8 MB buffer for every request, of which a
// reply writes a few hundred KB. The Go runtime clears the whole of a
// large allocation that reuses memory the heap had before, so from the
// second turn of a chat on (the first turn's buffer freed) every turn
// made those 8 MB resident; a first turn did too whenever the start left
// 8 MB free in one piece (one run of the workload in four). The buffer
// also counted as live: the collector let the heap grow by half of it
// before each cycle, or the chat had to collect at GOGC=50 (as it did in
// session 11) to keep that down.
//
// Requests that sign in (OLLAMA_AUTH, or ollama.com) go through the api
// client, which holds the key; so do all requests of a session without
// Raw.
func (s *Session) chatStream(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	if s.raw.URL == nil || envconfig.UseAuth() || s.raw.URL.Hostname() == "ollama.com" {
		return s.client.Chat(ctx, req, fn)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	// The connection the reply comes on, to keep its socket quiet while
	// the reader sleeps (quietSocket).
	var conn net.Conn
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { conn = i.Conn }})
	request, err := http.NewRequestWithContext(traced, http.MethodPost, s.raw.URL.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("Accept", "application/x-ndjson")
	request.Header.Set("User-Agent", fmt.Sprintf("ollama/%s (%s %s) Go/%s", version.Version, runtime.GOARCH, runtime.GOOS, runtime.Version()))
	hc := s.raw.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	// The tool calls' numbers as the model wrote them, as the api
	// client's transport reads them (cli/tui.go).
	exact := *hc
	exact.Transport = exactjson.ExactToolCalls(hc.Transport)
	response, err := exact.Do(request)
	if err != nil {
		return err
	}
	defer func() { _ = response.Body.Close() }()
	paced := &pacedReader{ctx: ctx, r: response.Body, every: chatReadEvery}
	if response.ProtoMajor == 1 && conn != nil {
		// HTTP/1: the body is read from the socket by this goroutine
		// only, in paced.Read (HTTP/2's frames are read by a goroutine
		// of the transport, which the mark would hold back).
		paced.sock = quietSocketOf(conn)
	}
	scanner := bufio.NewScanner(paced)
	scanner.Buffer(make([]byte, 0, chatLineStart), chatLineMax)
	for scanner.Scan() {
		if err := chatLine(response, scanner.Bytes(), fn); err != nil {
			return err
		}
	}
	return nil
}

// chatLine hands one line of a chat's stream to fn, or says what is
// wrong with it, as the api client does. The api client decodes each
// line twice, for an error and for the reply; a line is decoded here
// once, into both (a token's line of the usual form by tokenLine,
// without encoding/json), and only a line that does not decode so (not
// JSON, a field of another type) is read again as the api client reads
// it, for its error to be the same.
func chatLine(response *http.Response, line []byte, fn api.ChatResponseFunc) error {
	if token, ok := tokenLine(line); ok {
		if err := chatLineError(response, "", ""); err != nil {
			return err
		}
		return fn(token)
	}
	var reply struct {
		api.ChatResponse
		Error     string `json:"error,omitempty"`
		SigninURL string `json:"signin_url,omitempty"`
	}
	if json.Unmarshal(line, &reply) != nil {
		return chatLineAsTheAPIClient(response, line, fn)
	}
	if err := chatLineError(response, reply.Error, reply.SigninURL); err != nil {
		return err
	}
	return fn(reply.ChatResponse)
}

// chatLineAsTheAPIClient is chatLine as the api client reads a line: for
// an error first, then for the reply.
func chatLineAsTheAPIClient(response *http.Response, line []byte, fn api.ChatResponseFunc) error {
	var errorResponse struct {
		Error     string `json:"error,omitempty"`
		SigninURL string `json:"signin_url,omitempty"`
	}
	if err := json.Unmarshal(line, &errorResponse); err != nil {
		if response.StatusCode >= http.StatusBadRequest {
			return api.StatusError{StatusCode: response.StatusCode, Status: response.Status, ErrorMessage: string(line)}
		}
		return errors.New(string(line))
	}
	if err := chatLineError(response, errorResponse.Error, errorResponse.SigninURL); err != nil {
		return err
	}
	var resp api.ChatResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return err
	}
	return fn(resp)
}

// chatLineError is the error a line of the stream says, by the
// response's status and the line's error and signin_url, or nil.
func chatLineError(response *http.Response, message, signinURL string) error {
	switch {
	case response.StatusCode == http.StatusUnauthorized:
		return api.AuthorizationError{StatusCode: response.StatusCode, Status: response.Status, SigninURL: signinURL}
	case response.StatusCode >= http.StatusBadRequest:
		return api.StatusError{StatusCode: response.StatusCode, Status: response.Status, ErrorMessage: message}
	case message != "":
		return errors.New(message)
	}
	return nil
}

// chatReadEvery is how often a chat's stream is read at most. A model
// writes a token every millisecond or sooner, and reading each line as
// it came woke the whole process for it (the netpoller, the scheduler,
// the runtime's monitor thread, two to three context switches a line:
// about 70-90 µs of CPU a token on two cores, more than the decoding),
// where the screen shows the tokens in frames 50 ms apart. Reading what
// came in the last 16 ms at once takes 20-30% off a reply's CPU and
// changes no frame: the end of a reply is on screen as soon as before.
const chatReadEvery = 16 * time.Millisecond

// pacedReader reads r no more often than every: what came in between
// waits in the socket and the HTTP reader and is read at once. The first
// read is not held back; a wait ends when ctx does. While it waits, sock
// (when there is one: the socket r reads) is hushed, so that what arrives
// does not wake the process; it is woken again before the wait returns.
type pacedReader struct {
	ctx   context.Context
	r     io.Reader
	every time.Duration
	last  time.Time
	sock  *quietSocket
}

// Read waits until every has passed since the last read, then reads.
func (p *pacedReader) Read(b []byte) (int, error) {
	if wait := p.every - time.Since(p.last); wait > 0 && !p.last.IsZero() {
		p.sock.hush()
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-p.ctx.Done():
			t.Stop()
			p.sock.wake()
			return 0, p.ctx.Err()
		}
		p.sock.wake()
	}
	n, err := p.r.Read(b)
	p.last = time.Now()
	return n, err
}
