// Package mcp holds latch's live MCP server connections: it builds one
// client per server (stdio, streamable HTTP or legacy SSE, via mcp-go),
// keeps it for the whole chat, reports every change of state, names the
// tools for the model, and runs tool calls with the server's timeout.
// Credentials are resolved when a client is built and never leave it.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/oauth"
)

// Options configure a Manager.
type Options struct {
	// OnEvent receives every event. It is called from the manager's
	// goroutines and must return quickly.
	OnEvent func(Event)
	// Getenv reads token_env variables (default os.Getenv).
	Getenv func(string) string
	// MaxResultBytes caps a tool result's text (default DefaultMaxResultBytes).
	MaxResultBytes int
	// Roots are the absolute directories servers are told of (roots/list);
	// none (nil) means no roots are offered.
	Roots []string
	// Elicit answers a server's elicitation/create (a form to fill in, a
	// URL to open); nil: elicitation is not offered.
	Elicit ElicitFunc
	// Sample answers servers' sampling requests; nil: sampling is not
	// offered (see SampleFunc).
	Sample SampleFunc
	// OpenBrowser opens an OAuth login URL in the person's browser (see
	// package oauth); nil when no one is there to log in (latch -p): a server
	// that needs a browser then fails at once, saying what to run.
	OpenBrowser func(ctx context.Context, url string) error
	// AuthDir is where OAuth logins are kept ($XDG_STATE_HOME/latch/auth);
	// "" keeps them in memory only.
	AuthDir string
	// OAuthHTTP is the client for authorization servers (default: one
	// with a 30 s timeout).
	OAuthHTTP *http.Client
	// NoChat says no one can type a chat command (-p, latch serve): what
	// latch says of a server suggests none (tokenrefused.go).
	NoChat bool
	// Held are latch's own credentials (the gateway's token): redacted
	// as every server's are, and given to no server (see Held).
	Held Held
}

// Manager holds every configured server. Its methods are safe for
// concurrent use.
type Manager struct {
	opts    Options
	order   []string // server names, sorted
	servers map[string]*server
	// red knows every credential of every server, as soon as it is known;
	// all text from servers leaves the manager through it.
	red *redactor

	// renameMu serializes rename, so that of two concurrent renames the
	// later one can't overwrite names with an earlier read of the tools.
	renameMu sync.Mutex

	// shut is set by CloseAll: nothing connects after it.
	shut atomic.Bool

	rootsMu sync.Mutex
	roots   []string // see Roots
	// rootsEver are every root of the session, removed ones too (Bases).
	rootsEver []string

	mu    sync.Mutex
	names map[string]toolRef // model-facing name → tool
	calls map[string]*call   // running calls with a call id, by id (their progress token)
}

// call is one running call: Esc cancels it through CancelCalls.
type call struct {
	cancel    context.CancelFunc
	cancelled bool // by CancelCalls, not by the caller's ctx or the timeout
}

type toolRef struct {
	server *server
	tool   Tool
	// headers are the tool's x-mcp-header parameters, read from its
	// schema as the server wrote it (not the redacted one).
	headers []mcpgo.ParamHeaderBinding
}

// server is one configured server and its connection, if any.
type server struct {
	cfg ServerConfig
	log logBuf

	mu       sync.Mutex
	status   Status
	conn     *conn
	gen      int // bumped per connect; events of older connections are dropped
	tools    []mcpgo.Tool
	override string       // a token given with /token: memory only
	auth     *oauth.State // an OAuth server's login; nil for the others
	// abort ends the connect in progress, if any; dialing is closed when
	// that connect has returned (and stopped whatever it started).
	abort   context.CancelFunc
	dialing chan struct{}
	// procs are the processes started for this server and not yet
	// stopped, whichever connect started them: a close stops them all.
	procs map[*process]struct{}
	// The refreshes of its tool and prompt lists (list_changed),
	// coalesced.
	toolsRefresh, promptsRefresh coalescer
	// prompts are the connection's prompts (prompts.go).
	prompts promptState
	// bases are its bases as last worked out (bases.go), for the
	// connection gen and the number of the session's roots then.
	bases basesMemo
}

// New makes a manager for the servers. Nothing connects until Start.
func New(cfgs []ServerConfig, o Options) *Manager {
	if o.OnEvent == nil {
		o.OnEvent = func(Event) {}
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.MaxResultBytes == 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	m := &Manager{opts: o, servers: map[string]*server{}, names: map[string]toolRef{}, calls: map[string]*call{},
		red: newRedactor(append(knownSecrets(cfgs, o.Getenv), o.Held.Values...)...)}
	// Roots are offered only when the person gave some: a server such as
	// server-filesystem replaces the folders it was started with by the
	// client's roots, so offering the working directory unasked would
	// change, unseen, what it may touch.
	m.roots = slices.Clone(o.Roots)
	m.rootsEver = slices.Clone(o.Roots)
	secrets := secretEnvNames(cfgs)
	for _, c := range cfgs {
		c.secretVars, c.held = secrets, o.Held
		s := &server{cfg: c}
		if c.usesOAuth() {
			s.auth = m.newOAuthState(c)
		}
		s.status = Status{Name: c.Name, Transport: transportName(c.Transport), State: StateClosed, Since: time.Now()}
		if c.Disabled {
			s.status.State = StateDisabled
		}
		m.servers[c.Name] = s
		m.order = append(m.order, c.Name)
	}
	sort.Strings(m.order)
	return m
}

// emit hands an event on, with every credential redacted from it.
func (m *Manager) emit(e Event) { m.opts.OnEvent(redactAll(m.red, m.withLogin(e))) }

// knownSecrets are the credentials the config reveals before anything
// connects: literal tokens, the values of token_env variables, the values
// typed for VS Code inputs and literal Authorization headers. Tokens from files and commands join when read.
func knownSecrets(cfgs []ServerConfig, getenv func(string) string) []string {
	var out []string
	for _, c := range cfgs {
		out = append(out, c.Token)
		out = append(out, c.Secrets...)
		if c.TokenEnv != "" {
			out = append(out, getenv(c.TokenEnv))
		}
		for k, v := range c.Headers {
			if strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Proxy-Authorization") {
				out = append(out, v)
				if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
					out = append(out, cred)
				}
			}
		}
	}
	return out
}

func transportName(t string) string {
	if t == "" {
		return TransportStdio
	}
	return t
}

// Start connects every enabled server in the background, in parallel. It
// returns at once; each server reports its progress as events. Each connect
// is registered before Start returns, so a CloseAll right after stops it.
func (m *Manager) Start() {
	for _, name := range m.order {
		if s := m.servers[name]; !s.cfg.Disabled {
			if a := m.begin(s); a != nil {
				go m.connect(s, a)
			}
		}
	}
}

// Names lists the configured servers, sorted.
func (m *Manager) Names() []string { return append([]string(nil), m.order...) }

// ErrUnknownServer is returned for a name that is not configured.
var ErrUnknownServer = errors.New("no such server")

// ErrShutDown is returned by Connect and SetToken after CloseAll.
var ErrShutDown = errors.New("the servers are shut down (latch is quitting)")

func (m *Manager) get(name string) (*server, error) {
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (servers: %v)", ErrUnknownServer, name, m.order)
	}
	return s, nil
}

// Connect connects a server (or "all"). On a server that is connected it
// reconnects: the old client is closed and a new one built, with the
// credential read again. It returns when the connection is up or failed.
// The connect is registered as soon as Connect is called, so a Close or
// CloseAll from then on stops it and whatever it started.
func (m *Manager) Connect(name string) error {
	if name == "all" {
		var wg sync.WaitGroup
		var err error
		for _, n := range m.order {
			s := m.servers[n]
			a := m.begin(s)
			if a == nil {
				err = ErrShutDown
				continue
			}
			wg.Add(1)
			go func() { defer wg.Done(); m.connect(s, a) }()
		}
		wg.Wait()
		return err
	}
	s, err := m.get(name)
	if err != nil {
		return err
	}
	a := m.begin(s)
	if a == nil {
		return ErrShutDown
	}
	m.connect(s, a)
	st := s.snapshot()
	if st.State != StateConnected {
		return errors.New(st.Summary())
	}
	return nil
}

// SetToken replaces a server's credential for this session (memory only,
// never written anywhere) and reconnects it.
func (m *Manager) SetToken(name, token string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	if t := transportName(s.cfg.Transport); t != TransportHTTP && t != TransportSSE {
		return fmt.Errorf("%s is a %s server: a token is only sent to HTTP servers (a stdio server's credentials go in its env)", name, t)
	}
	s.mu.Lock()
	s.override = trimToken(token)
	m.red.add(s.override)
	s.mu.Unlock()
	return m.Connect(name)
}

// Close ends a server's connection (or "all"): a stdio server and its
// children are stopped, an HTTP session closed. A connect in progress is
// given up, and every process it started stopped.
func (m *Manager) Close(name string) error {
	if name == "all" {
		m.closeAll()
		return nil
	}
	s, err := m.get(name)
	if err != nil {
		return err
	}
	m.closeServer(s)
	return nil
}

// CloseAll is for quitting: it closes every server in parallel, gives up
// every connect in progress and stops every process latch started for the
// servers, whatever its connection's state; stubborn stdio servers are
// killed, so this takes at most a few seconds. Nothing connects after it:
// Start does nothing, and Connect and SetToken return ErrShutDown.
func (m *Manager) CloseAll() {
	m.shut.Store(true)
	m.closeAll()
}

func (m *Manager) closeAll() {
	var wg sync.WaitGroup
	for _, n := range m.order {
		wg.Add(1)
		go func(s *server) { defer wg.Done(); m.closeServer(s) }(m.servers[n])
	}
	wg.Wait()
}

// closeWait bounds how long a close waits for a connect it gave up to
// return (each step of a connect ends with its context, and its processes
// are stopped by the close itself; this is a safety net).
var closeWait = 5 * time.Second

// closeServer drops the server's connection, gives up a connect in
// progress, stops every process of the server and moves it to "closed"
// (a disabled server that never connected stays disabled).
func (m *Manager) closeServer(s *server) {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.gen++
	hadTools := len(s.tools) > 0
	s.tools = nil
	abort, dialing := s.abort, s.dialing
	s.abort, s.dialing = nil, nil
	s.mu.Unlock()
	if hadTools {
		// Names only change when tools go: closing 10,000 servers that
		// never connected costs no renaming (which is linear in servers).
		m.rename()
	}
	if abort != nil {
		abort()
	}
	// Stop the processes now, whatever the connect is doing: that ends a
	// handshake or a tools/list as well.
	stopped := m.stopProcesses(s)
	if dialing != nil {
		select {
		case <-dialing:
		case <-time.After(closeWait):
			s.log.add("latch: an abandoned connect did not return within " + closeWait.String())
		}
	}
	if c != nil {
		c.close()
	}
	<-stopped
	// Anything a connect started after the first sweep (it stops its own
	// process when it fails, but the wait above is bounded).
	<-m.stopProcesses(s)
	s.mu.Lock()
	wasDisabled := s.status.State == StateDisabled && c == nil
	if !wasDisabled {
		s.setLocked(StateClosed, "")
	}
	st := s.status
	s.mu.Unlock()
	if !wasDisabled {
		m.emit(StatusChanged{Status: st})
	}
}

// stopProcesses stops every process of s in parallel; the channel is
// closed when all have been stopped.
func (m *Manager) stopProcesses(s *server) <-chan struct{} {
	s.mu.Lock()
	procs := make([]*process, 0, len(s.procs))
	for p := range s.procs {
		procs = append(procs, p)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for _, p := range procs {
			wg.Add(1)
			go func() { defer wg.Done(); p.stop() }()
		}
		wg.Wait()
	}()
	return done
}

// track registers a process started for s, until it is stopped.
func (s *server) track(p *process) {
	p.onStopped = func() {
		s.mu.Lock()
		delete(s.procs, p)
		s.mu.Unlock()
	}
	s.mu.Lock()
	if s.procs == nil {
		s.procs = map[*process]struct{}{}
	}
	s.procs[p] = struct{}{}
	s.mu.Unlock()
}

// attempt is one connect of a server, registered by begin.
type attempt struct {
	gen     int
	ctx     context.Context // done when the connect is given up
	abort   context.CancelFunc
	dialing chan struct{} // closed when the connect has returned
	// What the connect replaces, closed before it dials.
	old        *conn
	oldAbort   context.CancelFunc
	oldDialing chan struct{}
}

// begin registers a connect of s and moves s to connecting: from now on a
// close gives it up. It returns nil after CloseAll.
func (m *Manager) begin(s *server) *attempt {
	ctx, abort := context.WithCancel(context.Background())
	a := &attempt{ctx: ctx, abort: abort, dialing: make(chan struct{})}
	s.mu.Lock()
	// Checked under s.mu: CloseAll sets shut before it takes any s.mu, so
	// either this sees it, or CloseAll sees this attempt.
	if m.shut.Load() {
		s.mu.Unlock()
		abort()
		return nil
	}
	a.old, a.oldAbort, a.oldDialing = s.conn, s.abort, s.dialing
	s.conn = nil
	s.tools = nil
	s.gen++
	a.gen = s.gen
	s.abort, s.dialing = abort, a.dialing
	s.setLocked(StateConnecting, "")
	st := s.status
	s.mu.Unlock()
	if a.old != nil {
		m.rename()
	}
	m.emit(StatusChanged{Status: st})
	return a
}

// connect runs an attempt: it closes what the attempt replaces, then
// builds a client and connects it, reporting each step.
func (m *Manager) connect(s *server, a *attempt) {
	defer func() {
		a.abort()
		close(a.dialing)
	}()
	a.closeOld()
	ctx, gen := a.ctx, a.gen
	if ctx.Err() != nil {
		return // closed meanwhile
	}
	token, err := m.credential(ctx, s)
	if err != nil {
		m.fail(s, gen, StateFailed, err.Error(), "", nil)
		return
	}
	m.red.add(token)
	h := dialHooks{
		onNote:   func(n mcpgo.JSONRPCNotification) { m.notification(s, gen, n) },
		onLog:    func(line string) { s.log.add("stderr: " + line) },
		onNotice: func(line string) { s.log.add("latch: " + m.red.apply(line)) },
		onProc:   s.track,
		roots:    rootsHandler{m},
		elicit:   elicitHandler{m: m, server: s.cfg.Name},
		sample:   samplingHandler{m, s.cfg.Name},
		auth:     s.auth,
	}
	c, res, tools, err := dialCtx(ctx, s.cfg, token, m.red, h)
	if err != nil {
		m.dialFailed(s, gen, err)
		return
	}
	m.connected(s, gen, c, res, tools)
}

// closeOld gives up the connect the attempt replaces, waiting a bounded
// time for it to return, and closes the connection it replaces.
func (a *attempt) closeOld() {
	if a.oldAbort != nil {
		a.oldAbort()
		select {
		case <-a.oldDialing:
		case <-time.After(closeWait):
		}
	}
	if a.old != nil {
		a.old.close()
	}
}

// credential is the token to connect s with: one given with /token, else
// the configured credential, read now ("" without either).
func (m *Manager) credential(ctx context.Context, s *server) (string, error) {
	s.mu.Lock()
	override := s.override
	s.mu.Unlock()
	if override != "" || !s.cfg.hasCredential() {
		return override, nil
	}
	return resolveToken(ctx, s.cfg, m.opts.Getenv)
}

// dialFailed reports a failed dial: failed, or auth_expired for a 401,
// with a stdio server's exit status and stderr tail.
func (m *Manager) dialFailed(s *server, gen int, err error) {
	state, exit, tail := StateFailed, "", []string(nil)
	var ce *connectError
	if errors.As(err, &ce) {
		exit, tail = ce.exit, ce.tail
		if ce.auth {
			state = StateAuthExpired
			if s.auth != nil {
				err = errors.New(s.auth.Reason())
			} else {
				err = errors.New(m.authLost(s))
			}
		}
	}
	m.fail(s, gen, state, err.Error(), exit, tail)
}

// connected makes c the live connection of s, unless s was closed or
// reconnected meanwhile (then c is closed), and watches it.
func (m *Manager) connected(s *server, gen int, c *conn, res *mcpgo.InitializeResult, tools []mcpgo.Tool) {
	s.mu.Lock()
	if s.gen != gen { // closed or reconnected meanwhile
		s.mu.Unlock()
		c.close()
		return
	}
	s.conn = c
	s.tools = tools
	s.status.ProtocolVersion = res.ProtocolVersion
	s.status.ServerName = res.ServerInfo.Name
	s.status.Tools = len(tools)
	s.status.ExitStatus, s.status.StderrTail = "", nil
	m.requestsOf(&s.status, c, res.Capabilities, transportName(s.cfg.Transport))
	s.mu.Unlock()
	// Name the tools before anyone can see the server as connected.
	m.rename()
	s.mu.Lock()
	if s.gen != gen || s.conn != c {
		s.mu.Unlock()
		return
	}
	s.setLocked(StateConnected, "")
	st := s.status
	s.mu.Unlock()
	m.emit(StatusChanged{Status: st})
	m.requestPrompts(s, gen)
	go m.watch(s, gen, c)
}

// fail records a failed connect or a lost connection and reports it with
// the exit status and stderr tail, loudly.
func (m *Manager) fail(s *server, gen int, state State, reason, exit string, tail []string) {
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return
	}
	s.setLocked(state, reason)
	s.status.LastError = reason
	s.status.ExitStatus, s.status.StderrTail = exit, tail
	s.status.Tools = 0
	st := s.status
	s.mu.Unlock()
	if reason != "" {
		s.log.add("latch: " + st.Summary())
	}
	m.emit(StatusChanged{Status: st})
}

// watch waits for a live connection to end on its own: a stdio server
// exiting, or an SSE stream lost.
func (m *Manager) watch(s *server, gen int, c *conn) {
	var reason, exit string
	if c.proc != nil {
		<-c.proc.exited
		exit = c.proc.exitStatus()
		reason = "the server exited (" + exit + ")"
	} else {
		select {
		case <-c.closed:
			return
		case err := <-c.lost:
			reason = "connection lost: " + shortError(err)
		}
	}
	tail := c.stderrTail()
	s.mu.Lock()
	current := s.gen == gen && s.conn == c
	if current {
		s.conn = nil
		s.tools = nil
	}
	s.mu.Unlock()
	if !current {
		return
	}
	m.rename()
	go c.close()
	m.fail(s, gen, StateDisconnected, reason, exit, tail)
}

func (s *server) setLocked(state State, reason string) {
	s.status.State = state
	s.status.Reason = reason
	s.status.Since = time.Now()
}

func (s *server) snapshot() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.StderrTail = append([]string(nil), st.StderrTail...)
	st.Offers = append([]string(nil), st.Offers...)
	st.Answers = append([]string(nil), st.Answers...)
	st.NotOffered = append([]string(nil), st.NotOffered...)
	if s.auth != nil {
		st.Login = s.auth.Info()
	}
	return st
}

// live is a server and its live connection, or an error (ErrNotConnected)
// saying what state it is in and how to connect it.
func (m *Manager) live(name string) (*server, *conn, error) {
	s, err := m.get(name)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	c, st := s.conn, s.status
	s.mu.Unlock()
	if c == nil {
		return nil, nil, fmt.Errorf("%w: %s is %s (/connect %s)", ErrNotConnected, name, st.Summary(), name)
	}
	return s, c, nil
}

// Status returns one server's status.
func (m *Manager) Status(name string) (Status, error) {
	s, err := m.get(name)
	if err != nil {
		return Status{}, err
	}
	return redactAll(m.red, s.snapshot()), nil
}

// Statuses returns every server's status, sorted by name.
func (m *Manager) Statuses() []Status {
	out := make([]Status, 0, len(m.order))
	for _, n := range m.order {
		out = append(out, m.servers[n].snapshot())
	}
	return redactAll(m.red, out)
}

// Logs returns a server's log: stderr lines and log notifications, redacted.
func (m *Manager) Logs(name string) ([]string, error) {
	s, err := m.get(name)
	if err != nil {
		return nil, err
	}
	return redactAll(m.red, s.log.tail(0)), nil
}
