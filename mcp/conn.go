package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/oauth"
)

// stderrTailLines is how many of a stdio server's last stderr lines a
// failure report carries.
const stderrTailLines = 12

// conn is one live client of a server: built once per connect and used by
// every call until it is closed.
type conn struct {
	client     *client.Client
	http       bool               // streamable HTTP or SSE: only these can answer 401
	streamable bool               // streamable HTTP: x-mcp-header parameters travel as headers (paramheaders.go)
	notice     func(string)       // a line for the server's log, from latch
	roots      bool               // the roots capability was declared (not on legacy SSE)
	elicit     bool               // the elicitation capability was declared (not on legacy SSE)
	sample     bool               // the sampling capability was declared (not on legacy SSE)
	proc       *process           // stdio only
	red        *redactor          // the manager's: every credential it knows
	cancel     context.CancelFunc // ends the client's long-lived context
	lost       chan error         // an SSE connection reports loss here
	answers    *httpAnswers       // what an HTTP or SSE server answered (httpreasons.go)
	started    bool               // Start returned (an SSE stream sent its endpoint)
	life       context.Context    // the client's long-lived context
	listener   listener           // the stateless era's subscriptions/listen stream (era.go)
	inputs     inputHandlers      // answer a task's input requests (calltask_ext.go)
	logLevel   atomic.Value       // string: the level /logs set, for the stateless era's _meta
	closed     chan struct{}      // closed by close
	once       sync.Once
	ids        atomic.Int64 // the plain stdio calls' request ids (stdiocall.go)

	mu   sync.Mutex
	tail []string // last stderr lines (stdio)
	errs sync.WaitGroup
}

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// dial builds the client for cfg with the given token and connects it: the
// process or HTTP session, the handshake and the first tool list, all within
// the connect timeout. On failure everything it started is stopped.
func dial(cfg ServerConfig, token string, onNote func(mcpgo.JSONRPCNotification), onLog func(string)) (*conn, *mcpgo.InitializeResult, []mcpgo.Tool, error) {
	return dialCtx(context.Background(), cfg, token, newRedactor(token), dialHooks{onNote: onNote, onLog: onLog})
}

// dialHooks are what a connect tells its manager as it goes.
type dialHooks struct {
	onNote   func(mcpgo.JSONRPCNotification) // a server notification
	onLog    func(string)                    // a line of a stdio server's stderr
	onNotice func(string)                    // a line of latch's own for the server's log
	onProc   func(*process)                  // a stdio server's process, as soon as it started
	roots    rootsHandler                    // answers roots/list; zero: roots not offered
	elicit   elicitHandler                   // answers elicitation/create; zero: not offered
	sample   samplingHandler                 // answers sampling/createMessage; zero: not offered
	auth     *oauth.State                    // an OAuth server's login (http, sse)
}

// dialCtx is dial that gives up, stopping what it started, when abort is
// done: a server closed while it connects. Every step (the process, an SSE
// stream's endpoint, the handshake, the first tool list) ends with abort or
// the connect timeout.
func dialCtx(abort context.Context, cfg ServerConfig, token string, red *redactor, h dialHooks) (*conn, *mcpgo.InitializeResult, []mcpgo.Tool, error) {
	c := &conn{red: red, lost: make(chan error, 1), closed: make(chan struct{}), notice: h.onNotice}
	if c.notice == nil {
		c.notice = func(string) {}
	}
	tr, err := c.transport(cfg, token, h)
	if err != nil {
		return nil, nil, nil, err
	}
	// The era cfg.Protocol names, or the newest the server speaks, found
	// by a probe that a server ignoring it delays by at most discoverWait
	// (era.go).
	opts, version := eraOptions(cfg)
	if c.roots {
		// Declares roots (listChanged) and answers roots/list: stdio and
		// streamable HTTP (its listening stream) carry server requests.
		opts = append(opts, client.WithRootsHandler(h.roots))
	}
	if c.elicit {
		// Declares elicitation (form and url) and answers elicitation/create.
		opts = append(opts, client.WithElicitationHandler(c.elicitHandler(h)))
	}
	if c.sample {
		// Declares sampling and answers sampling/createMessage.
		opts = append(opts, client.WithSamplingHandler(h.sample))
	}
	// Declared in full here, so latch's own requests (toolslist.go) can
	// repeat them in a stateless-era request's _meta.
	opts = append(opts, client.WithClientCapabilities(c.capabilities()))
	c.inputs = c.inputHandlers(h) // the same, for a task's input (calltask_ext.go)
	c.client = client.NewClient(tr, opts...)
	c.listener.acked = make(chan error, 1)
	c.client.OnNotification(c.onListenNote)
	if h.onNote != nil {
		c.client.OnNotification(h.onNote)
	}
	res, tools, err := c.handshake(abort, cfg, version)
	if err != nil {
		return nil, nil, nil, err
	}
	return c, res, tools, nil
}

// transport builds the transport cfg names: for stdio, it starts the
// server's process.
func (c *conn) transport(cfg ServerConfig, token string, h dialHooks) (transport.Interface, error) {
	c.roots = h.roots.m != nil && offersRequests(transportName(cfg.Transport)) && len(h.roots.m.Roots()) > 0
	c.elicit = h.elicit.m != nil && h.elicit.m.opts.Elicit != nil && offersRequests(transportName(cfg.Transport))
	c.sample = h.sample.m != nil && h.sample.m.opts.Sample != nil && offersRequests(transportName(cfg.Transport))
	switch cfg.Transport {
	case TransportStdio, "":
		return c.stdioTransport(cfg, h)
	case TransportHTTP:
		c.http, c.streamable, c.answers = true, true, newHTTPAnswers()
		return c.streamableTransport(cfg, token, h.auth)
	case TransportSSE:
		c.http, c.answers = true, newHTTPAnswers()
		return c.sseTransport(cfg, token, h.auth)
	case TransportInProcess:
		if cfg.InProcess == nil {
			return nil, errors.New("inprocess transport without a server")
		}
		var opts []transport.InProcessOption
		if c.roots {
			opts = append(opts, transport.WithRootsHandler(h.roots))
		}
		if c.elicit {
			opts = append(opts, transport.WithElicitationHandler(c.elicitHandler(h)))
		}
		if c.sample {
			opts = append(opts, transport.WithSamplingHandler(h.sample))
		}
		return checkedInProcess{transport.NewInProcessTransportWithOptions(cfg.InProcess, opts...), autoEra(cfg)}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", cfg.Transport)
}

// stdioTransport starts the server's process, its stderr flowing into
// h.onLog, and talks to it over its stdin and stdout.
func (c *conn) stdioTransport(cfg ServerConfig, h dialHooks) (transport.Interface, error) {
	onLog := h.onLog
	if onLog == nil {
		onLog = func(string) {}
	}
	p, err := startProcess(cfg)
	if err != nil {
		return nil, err
	}
	if h.onProc != nil {
		h.onProc(p)
	}
	c.proc = p
	c.errs.Add(1)
	go c.drainStderr(p.stderr, onLog)
	return checkedStdio{transport.NewIO(p.stdout, p.stdin, nil), autoEra(cfg)}, nil
}

// streamableTransport is a streamable HTTP transport to cfg.URL.
func (c *conn) streamableTransport(cfg ServerConfig, token string, auth *oauth.State) (transport.Interface, error) {
	opts := []transport.StreamableHTTPCOption{
		transport.WithHTTPBasicClient(serverHTTPClient(cfg, token, auth, c.answers)),
		transport.WithHTTPHeaders(staticHeaders(cfg, token)),
		transport.WithHTTPLogger(quietLogger),
		// Without a listening GET stream, a legacy streamable-HTTP
		// connection hears tools/list_changed only with the next
		// request's reply (docs/ARCHITECTURE.md, "mcp-go").
		// mcp-go opens it only on a legacy connection; a stateless one
		// listens with subscriptions/listen (era.go).
		transport.WithContinuousListening(), //nolint:staticcheck // deprecated: its replacement, Client.Listen, serves only the stateless era
	}
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaderFunc(bearer(token)))
	}
	t, err := transport.NewStreamableHTTP(cfg.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("bad url: %v", err)
	}
	return &eitherEraHTTP{StreamableHTTP: t, auto: autoEra(cfg)}, nil
}

// sseTransport is a legacy SSE transport to cfg.URL; a lost stream is
// reported on c.lost.
func (c *conn) sseTransport(cfg ServerConfig, token string, auth *oauth.State) (transport.Interface, error) {
	opts := []transport.ClientOption{
		transport.WithHTTPClient(serverHTTPClient(cfg, token, auth, c.answers)),
		transport.WithHeaders(staticHeaders(cfg, token)),
		transport.WithSSELogger(quietLogger),
		// mcp-go's SSE default of 60 s would override our timeout.
		transport.WithResponseTimeout(cfg.timeout()),
		transport.WithEndpointTimeout(cfg.connectTimeout()),
	}
	if token != "" {
		opts = append(opts, transport.WithHeaderFunc(bearer(token)))
	}
	t, err := transport.NewSSE(cfg.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("bad url: %v", err)
	}
	t.SetConnectionLostHandler(func(err error) {
		select {
		case c.lost <- err:
		default:
		}
	})
	return t, nil
}

// serverHTTPClient is the HTTP client of an HTTP or SSE server: its
// headers and token for its origin only, redirects within it only, and
// an OAuth server's access token on top (see oauth.State.Transport). What the
// server answers is noted in rec, for the reason of a failed connect.
func serverHTTPClient(cfg ServerConfig, token string, auth *oauth.State, rec *httpAnswers) *http.Client {
	var rt http.RoundTripper = newHeaderTransport(cfg, token)
	if auth != nil {
		rt = auth.Transport(rt)
	}
	rt = &recordingTransport{base: rt, rec: rec}
	return &http.Client{Transport: rt, CheckRedirect: sameOrigin(cfg)}
}

// handshake starts the client, then runs the handshake and the first
// tool list, within the connect timeout and until abort is done. On
// failure it closes the connection and says why (see describe).
func (c *conn) handshake(abort context.Context, cfg ServerConfig, version string) (*mcpgo.InitializeResult, []mcpgo.Tool, error) {
	life, cancel := context.WithCancel(context.Background())
	c.life, c.cancel = life, cancel
	// The handshake's context is not the client's: the client lives on.
	ctx, stop := context.WithTimeout(abort, cfg.connectTimeout())
	defer stop()
	// But until the connect is done, giving it up (or its timeout) ends
	// the client's context too: an SSE transport's Start waits for the
	// stream and its endpoint under that context, not the handshake's.
	unlink := context.AfterFunc(ctx, cancel)
	defer unlink()
	fail := func(err error) (*mcpgo.InitializeResult, []mcpgo.Tool, error) {
		err = c.describe(ctx, err, cfg)
		c.close()
		return nil, nil, err
	}
	if err := c.client.Start(life); err != nil {
		return fail(err)
	}
	c.started = true
	var ir mcpgo.InitializeRequest
	ir.Params.ProtocolVersion = version // "": the newest both speak
	ir.Params.ClientInfo = clientInfo
	res, err := c.client.Initialize(ctx, ir)
	if err != nil {
		return fail(err)
	}
	if cfg.Protocol == ProtocolModern && !isModern(res.ProtocolVersion) {
		return fail(fmt.Errorf("the server does not speak protocol %s (it answered the %s handshake); protocol is pinned to %s", ProtocolModern, res.ProtocolVersion, ProtocolModern))
	}
	c.askForLogs()
	// The stateless era's notifications come on a stream opened first,
	// so that no change after the first lists is missed.
	c.listen(ctx)
	tools, err := listTools(ctx, c)
	switch {
	case err != nil && res.Capabilities.Tools == nil && ctx.Err() == nil:
		// A server that offers no tools (only prompts, say) may refuse
		// tools/list: it is connected all the same, with none.
		tools = nil
	case err != nil:
		return fail(err)
	}
	if !unlink() { // given up at the last moment: the client's context is gone
		return fail(ctx.Err())
	}
	return res, tools, nil
}

// staticHeaders are the configured headers; a token's Authorization wins
// over one given here, so that one is dropped when there is a token.
func staticHeaders(cfg ServerConfig, token string) map[string]string {
	h := make(map[string]string, len(cfg.Headers))
	for k, v := range cfg.Headers {
		if token != "" && strings.EqualFold(k, "Authorization") {
			continue
		}
		h[k] = v
	}
	return h
}

func bearer(token string) transport.HTTPHeaderFunc {
	return func(context.Context) map[string]string {
		return map[string]string{"Authorization": "Bearer " + token}
	}
}

// connectError is a failed connect: the reason, and for a stdio server
// that ended, its exit status and last stderr lines.
type connectError struct {
	reason string
	exit   string
	tail   []string
	auth   bool
}

func (e *connectError) Error() string { return e.reason }

// describe turns a connect error into a reason for the user, redacted. It
// is called before the connection is closed, so a stdio server's end can
// still be read.
func (c *conn) describe(ctx context.Context, err error, cfg ServerConfig) error {
	ce := &connectError{}
	if errors.Is(ctx.Err(), context.Canceled) {
		ce.reason = "closed while connecting"
		return ce
	}
	switch {
	case c.isAuthError(err):
		ce.reason, ce.auth = "the server answered 401", true
	case c.http && httpReason(err, cfg, c.answers, c.started) != "":
		// Before the timeout: an SSE stream without an endpoint runs
		// into it.
		ce.reason = c.red.apply(httpReason(err, cfg, c.answers, c.started))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ce.reason = fmt.Sprintf("no answer to the handshake within %s (connect_timeout)", cfg.connectTimeout())
		if r := packageRunner(cfg); r != "" && c.proc != nil {
			ce.reason += fmt.Sprintf("; a first start of %s downloads the package, which can take longer: "+
				"try again once it is done, or raise connect_timeout", r)
		}
	case c.proc != nil && c.proc.wait(300*time.Millisecond):
		ce.exit = c.proc.exitStatus()
		ce.reason = "the server exited during the handshake (" + ce.exit + ")"
	default:
		ce.reason = c.red.apply(shortError(err))
	}
	if c.proc != nil {
		ce.tail = c.stderrTail()
	}
	return ce
}

// isAuthError reports whether err is an HTTP 401 from the server: only an
// HTTP transport (streamable HTTP or SSE) can answer one, and mcp-go
// reports it as a typed error. A "401" in the text of an error (a stdio
// tool's "report-401.txt not found", a JSON-RPC error) is not one.
func (c *conn) isAuthError(err error) bool {
	if !c.http || err == nil {
		return false
	}
	return errors.Is(err, transport.ErrUnauthorized) || client.IsAuthorizationRequiredError(err) ||
		client.IsOAuthAuthorizationRequiredError(err)
}

// shortError drops mcp-go's repeated wrapping prefixes.
func shortError(err error) string {
	s := err.Error()
	for _, p := range []string{"transport error: ", "failed to send request: ", "failed to initialize: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

// drainStderr keeps the server's stderr flowing into its log, redacted,
// and remembers the last lines for failure reports.
func (c *conn) drainStderr(r io.Reader, onLog func(string)) {
	defer c.errs.Done()
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			line = c.red.apply(strings.TrimRight(line, "\r\n"))
			if len(line) > 2000 {
				line = c.red.cut(line, 2000) + "…"
			}
			c.mu.Lock()
			c.tail = append(c.tail, line)
			if len(c.tail) > stderrTailLines {
				c.tail = c.tail[len(c.tail)-stderrTailLines:]
			}
			c.mu.Unlock()
			onLog(line)
		}
		if err != nil {
			return
		}
	}
}

// stderrTail returns the last stderr lines, waiting briefly for the pipe
// to drain after the process ended.
func (c *conn) stderrTail() []string {
	if c.proc != nil {
		done := make(chan struct{})
		go func() { c.errs.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(200 * time.Millisecond):
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.tail...)
}

// close tears the client down: the transport, then the process group.
func (c *conn) close() {
	c.once.Do(func() { close(c.closed) })
	if c.client != nil {
		done := make(chan struct{})
		go func() { _ = c.client.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second): // an HTTP DELETE that hangs
		}
	}
	if c.cancel != nil {
		c.cancel()
	}
	c.stopListening()
	if c.proc != nil {
		c.proc.stop()
	}
}
