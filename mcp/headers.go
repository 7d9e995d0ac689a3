package mcp

import "net/http"

// headerTransport puts a server's static headers and its bearer token on
// every request the HTTP client sends that lacks them. mcp-go adds them to
// its own requests, but ends a streamable-HTTP session with a DELETE that
// carries none, which a server behind a bearer check refuses, so that the
// session lingers there until it times out.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string // static headers, and Authorization for a token
}

// newHeaderTransport returns a transport adding cfg's static headers and,
// when token is set, "Authorization: Bearer token" (which wins over a
// configured Authorization, as everywhere).
func newHeaderTransport(cfg ServerConfig, token string) *headerTransport {
	h := staticHeaders(cfg, token)
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return &headerTransport{base: http.DefaultTransport, headers: h}
}

// RoundTrip sends r with the headers it lacks added, on a copy: a
// RoundTripper must not change the request it is given.
func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
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
