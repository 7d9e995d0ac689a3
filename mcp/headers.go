package mcp

import (
	"fmt"
	"net/http"
	"net/url"

	"latch/mcp/oauth"
)

// maxRedirects is how many redirects a server's client follows: Go's own
// limit, which applies only without a CheckRedirect.
const maxRedirects = 10

// sameOrigin is the CheckRedirect of the client for an HTTP or SSE
// server: it follows a redirect only within the configured origin (scheme,
// host and port), so that the credentials never leave it. Go's client
// drops Authorization on a redirect to another host, but not to another
// port or scheme, and copies every other header anyway; and with a
// headerTransport the credentials would be put back regardless.
func sameOrigin(cfg ServerConfig) func(*http.Request, []*http.Request) error {
	o := parseOrigin(cfg.URL)
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("server %q: stopped after %d redirects", cfg.Name, maxRedirects)
		}
		if !o.matches(req.URL) {
			return &originError{server: cfg.Name, target: req.URL, redirect: true}
		}
		return nil
	}
}

// origin is a URL's scheme, host and port, lower-cased and with the
// scheme's default port filled in.
type origin oauth.Origin

func originOf(u *url.URL) origin { return origin(oauth.OriginOf(u)) }

// parseOrigin is raw's origin; one that cannot be parsed matches nothing.
func parseOrigin(raw string) origin {
	u, err := url.Parse(raw)
	if err != nil {
		return origin{}
	}
	return originOf(u)
}

// matches reports whether u has origin o.
func (o origin) matches(u *url.URL) bool {
	return u != nil && o.Scheme != "" && o.Host != "" && originOf(u) == o
}

// originError is a request or redirect to another origin than the
// server's, refused. It names the target's scheme and host only: no path,
// query, user info or header.
type originError struct {
	server   string
	target   *url.URL
	redirect bool
}

func (e *originError) Error() string {
	where := e.target.Scheme + "://" + e.target.Host
	if e.redirect {
		return fmt.Sprintf("server %q redirected to %s: refused (credentials stay with the configured origin)", e.server, where)
	}
	return fmt.Sprintf("server %q: request to %s refused (credentials stay with the configured origin)", e.server, where)
}

// headerTransport puts a server's static headers and its bearer token on
// every request the HTTP client sends to the server's origin that lacks
// them. mcp-go adds them to its own requests, but ends a streamable-HTTP
// session with a DELETE that carries none, which a server behind a bearer
// check refuses, so that the session lingers there until it times out.
//
// A request to any other origin is refused, not sent: the client is this
// server's alone, and such a request may carry the headers mcp-go set
// (as for an SSE endpoint the server announces with another scheme).
type headerTransport struct {
	base    http.RoundTripper
	server  string
	origin  origin
	headers map[string]string // static headers, and Authorization for a token
}

// newHeaderTransport returns a transport for server cfg, for cfg.URL's
// origin, adding cfg's static headers and, when token is set,
// "Authorization: Bearer token" (which wins over a configured
// Authorization, as everywhere).
func newHeaderTransport(cfg ServerConfig, token string) *headerTransport {
	h := staticHeaders(cfg, token)
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return &headerTransport{base: http.DefaultTransport, server: cfg.Name, origin: parseOrigin(cfg.URL), headers: h}
}

// RoundTrip sends r with the headers it lacks added, on a copy: a
// RoundTripper must not change the request it is given.
func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !t.origin.matches(r.URL) {
		if r.Body != nil {
			_ = r.Body.Close() // a RoundTripper closes the body it does not send
		}
		return nil, &originError{server: t.server, target: r.URL}
	}
	var missing bool
	for k := range t.headers {
		if r.Header.Get(k) == "" {
			missing = true
			break
		}
	}
	if missing {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			if r.Header.Get(k) == "" {
				r.Header.Set(k, v)
			}
		}
	}
	return t.base.RoundTrip(r)
}
