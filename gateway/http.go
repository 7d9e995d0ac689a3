package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// HTTPOptions configure latch serve --listen.
type HTTPOptions struct {
	Addr  string // host:port to listen on
	Token string // the shared bearer token; required unless Clients names a client
	// Clients are the tokens of the clients the config names, each
	// naming its client (clients.go); nil: the shared token alone.
	Clients     *ClientTokens
	AllowRemote bool   // a non-loopback Addr is allowed (with TLS)
	TLSCert     string // PEM certificate file; with TLSKey, serve https
	TLSKey      string
	// Ready, when set, is told the address listened on (the port chosen
	// when Addr's is 0) once requests are taken.
	Ready func(addr string)
}

// Path is where the gateway serves MCP over streamable HTTP.
const Path = "/mcp"

// MaxRequestBody is the largest request body the gateway reads (8 MiB):
// far more than any tool call's arguments, and a bound on what one
// request can make it hold in memory. A larger body gets 413.
const MaxRequestBody = 8 << 20

// CheckBind says why latch serve refuses to listen on o.Addr, or nil: a
// token is needed always (the named clients' tokens must all be read, each
// its own), and an address other than loopback needs allow_remote and
// TLS.
func CheckBind(o HTTPOptions) error {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return fmt.Errorf("--listen %s: not HOST:PORT (e.g. 127.0.0.1:8765)", o.Addr)
	}
	if o.Token == "" && o.Clients == nil {
		return errors.New("--listen needs a bearer token: set serve.token_env or serve.token_file in the config, or $LATCH_SERVE_TOKEN; " +
			"every request must then carry it (Authorization: Bearer TOKEN)")
	}
	if _, err := newTokenTable(o.Token, o.Clients); err != nil {
		return err
	}
	if loopback(host) {
		return nil
	}
	switch {
	case !o.AllowRemote:
		return fmt.Errorf("--listen %s: not a loopback address; serving other machines needs serve.allow_remote: true and TLS (serve.tls_cert, serve.tls_key)", o.Addr)
	case o.TLSCert == "" || o.TLSKey == "":
		return fmt.Errorf("--listen %s: not a loopback address; serving other machines needs TLS (serve.tls_cert and serve.tls_key): the token would cross the network in clear", o.Addr)
	}
	return nil
}

// CheckRemote says why what (a flag or config key) may not listen on
// addr, or nil: an address other than loopback needs serve.allow_remote,
// as --listen's does.
func CheckRemote(what, addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %s: not HOST:PORT (e.g. 127.0.0.1:2222)", what, addr)
	}
	if loopback(host) || allowRemote {
		return nil
	}
	return fmt.Errorf("%s %s: not a loopback address; serving other machines needs serve.allow_remote: true", what, addr)
}

// loopback says whether host (no port) is a loopback name or address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// ServeHTTP serves the gateway over streamable HTTP at Path until ctx
// ends. Every request is guarded (see guard).
func (g *Gateway) ServeHTTP(ctx context.Context, o HTTPOptions) error {
	ln, err := Listen(o)
	if err != nil {
		return err
	}
	return g.Serve(ctx, ln, o)
}

// Listen checks o (CheckBind) and listens on o.Addr, for Serve: the
// chat's gateway (latch --serve) listens before the screen opens, so that
// an address in use is said before it, and serves once its servers are
// connected.
func Listen(o HTTPOptions) (net.Listener, error) {
	if err := CheckBind(o); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", o.Addr, err)
	}
	return ln, nil
}

// Serve serves the gateway over streamable HTTP at Path on ln (from
// Listen with the same o) until ctx ends, then closes it. Every request
// is guarded (see guard).
func (g *Gateway) Serve(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	addr := ln.Addr().String()
	tokens, err := newTokenTable(o.Token, o.Clients)
	if err != nil {
		_ = ln.Close()
		return err
	}
	ss := newSessions(g.o.Limits.withDefaults())
	mcpSrv := server.NewStreamableHTTPServer(g.srv, server.WithEndpointPath(Path), server.WithSessionIdManager(ss))
	ss.end = endSession(mcpSrv)
	go ss.sweepEvery(ctx)
	mux := http.NewServeMux()
	// A cancel of the 2026-07-28 form reaches its sender's requests
	// alone (cancelscope.go).
	calls := newInflight()
	mux.Handle(Path, ss.track(g.taskHTTP(calls.track(g.plainHTTP(scoped{mcpSrv, calls})))))
	// The server's own error log would print what clients sent: off.
	hs := &http.Server{Handler: guard(mux, addr, o.Addr, tokens), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: log.New(io.Discard, "", 0)}
	done := make(chan error, 1)
	go func() {
		if o.TLSCert != "" {
			done <- hs.ServeTLS(ln, o.TLSCert, o.TLSKey)
		} else {
			done <- hs.Serve(ln)
		}
	}()
	if o.Ready != nil {
		o.Ready(addr)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = mcpSrv.Shutdown(sctx)
	_ = hs.Shutdown(sctx)
	return nil
}

// guard refuses a request whose Host or Origin is not the address
// listened on (DNS rebinding: 403), then one with a token in its URL
// (400: a token belongs in the header, never where logs and histories
// keep it), then one without a bearer token the table takes (401). Tokens
// are compared in constant time and never echoed. The request goes on
// with the client its token names (withCaller).
func guard(next http.Handler, addr, asGiven string, tokens *tokenTable) http.Handler {
	hosts := allowedHosts(addr, asGiven)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "Forbidden: the Host header does not name the address latch serve listens on", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, hosts) {
			http.Error(w, "Forbidden: the Origin header does not name the address latch serve listens on", http.StatusForbidden)
			return
		}
		if tokenInURL(r.URL) {
			http.Error(w, "Bad Request: a token in the URL is refused; send it in the header (Authorization: Bearer TOKEN)", http.StatusBadRequest)
			return
		}
		got, ok := bearer(r.Header.Values("Authorization"))
		name, known := tokens.match(got)
		if !ok || !known {
			w.Header().Set("WWW-Authenticate", `Bearer realm="latch serve"`)
			http.Error(w, "Unauthorized: a valid bearer token is needed (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
			return
		}
		if !boundBody(w, r) {
			return
		}
		next.ServeHTTP(w, r.WithContext(withCaller(r.Context(), name)))
	})
}

// tokenInURL says whether the URL's query carries what may be a
// credential: an access_token or token parameter (RFC 6750's query form).
func tokenInURL(u *url.URL) bool {
	if u.RawQuery == "" {
		return false // the common case, without parsing
	}
	for k := range u.Query() {
		switch strings.ToLower(k) {
		case "access_token", "token", "bearer", "authorization":
			return true
		}
	}
	return false
}

// exactBody is the largest said length of a body that boundBody reads
// into a buffer made to that length before it arrives (a tool call's
// request is a few hundred bytes).
const exactBody = 64 << 10

// boundBody reads r's body, refusing one over MaxRequestBody with 413
// (false): said by its length, or found reading a body of unknown length
// (chunked), never read past the bound. The body read is put back, as a
// heldBody: the task router takes it from there without reading it again.
func boundBody(w http.ResponseWriter, r *http.Request) bool {
	tooLarge := func() bool {
		http.Error(w, fmt.Sprintf("Request Entity Too Large: latch serve takes request bodies of at most %d bytes", MaxRequestBody),
			http.StatusRequestEntityTooLarge)
		return false
	}
	if r.ContentLength > MaxRequestBody {
		return tooLarge()
	}
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	var body []byte
	var err error
	if r.ContentLength > 0 && r.ContentLength <= exactBody {
		// A small body of said length (net/http reads no further): one
		// buffer of that size rather than one grown while reading. A
		// larger one is held as it arrives, not set aside in advance.
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, MaxRequestBody+1))
	}
	if err != nil {
		http.Error(w, "Bad Request: the request body could not be read", http.StatusBadRequest)
		return false
	}
	if len(body) > MaxRequestBody {
		return tooLarge()
	}
	r.Body = newHeldBody(body)
	return true
}

// heldBody is a request body the guard read whole (boundBody): it reads
// as the body did, and its bytes are there for whoever comes next.
type heldBody struct {
	bytes.Reader
	b []byte
}

func newHeldBody(b []byte) *heldBody {
	h := &heldBody{b: b}
	h.Reset(b)
	return h
}

// Close does nothing: the body is in memory.
func (*heldBody) Close() error { return nil }

// holdBody is r's whole body, which it leaves in r.Body to be read again:
// the bytes the guard held, if it held it and nothing read it since, else
// read now.
func holdBody(r *http.Request) ([]byte, error) {
	if h, ok := r.Body.(*heldBody); ok && h.Len() == len(h.b) {
		return h.b, nil
	}
	b, err := io.ReadAll(r.Body)
	if err == nil {
		r.Body = newHeldBody(b)
	}
	return b, err
}

// allowedHosts are the Host values naming the listen address: as given,
// as bound, and for a loopback address its other loopback names.
func allowedHosts(addr, asGiven string) map[string]bool {
	out := map[string]bool{strings.ToLower(addr): true, strings.ToLower(asGiven): true}
	host, port, err := net.SplitHostPort(addr)
	if err == nil && loopback(host) {
		for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
			out[h+":"+port] = true
		}
	}
	if gh, gp, err := net.SplitHostPort(asGiven); err == nil && gp != port && port != "" {
		out[strings.ToLower(net.JoinHostPort(gh, port))] = true // PORT 0: the port chosen
	}
	return out
}

// originAllowed says whether a browser Origin is the listen address.
func originAllowed(origin string, hosts map[string]bool) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return hosts[strings.ToLower(u.Host)]
}
