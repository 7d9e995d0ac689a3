package oauth

import (
	"fmt"
	"net/http"
	"net/url"
)

// What would travel in clear, or be open to change on the way, if a
// login's URL were plain http to another machine.
const (
	clearURL          = "the login's discovery, and the token after it, would travel in clear"
	clearPRM          = "the resource's metadata, which names the authorization server, would travel in clear and could be changed on the way"
	clearIssuer       = "the authorization server's metadata, which names every endpoint of the login, would travel in clear and could be changed on the way"
	clearAuthorize    = "the browser would open the login page in clear (what you type there could be read and changed on the way)"
	clearToken        = "it would send the authorization code, the PKCE verifier and the client secret in clear"
	clearRegistration = "the client registration, and the client secret it answers, would travel in clear"
	clearRevocation   = "it would send the tokens and the client secret in clear"
	clearIDP          = "it would send your ID token and the identity provider's client secret in clear"
)

// checkEndpoint refuses a URL of the login unless it is https, or http
// to this machine (loopback), as for servers (PlainRemote). field says
// where the URL comes from; clear what plain http would expose. It is
// called before anything is sent to the URL or the browser opened on it.
func (o *State) checkEndpoint(field, raw, clear string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("server %q: %s is not an http(s) URL: refused", o.cfg.Name, field)
	}
	if PlainRemote(u) {
		return fmt.Errorf("server %q: %s is %s://%s, plain http to another machine: %s: refused (https is needed; plain http only to a loopback host)",
			o.cfg.Name, field, u.Scheme, u.Host, clear)
	}
	return nil
}

// checkEndpoints refuses a discovery with an endpoint checkEndpoint
// refuses: the browser's, the token endpoint, registration, revocation.
func (o *State) checkEndpoints(d *discovery) error {
	for _, e := range []struct{ field, url, clear string }{
		{"the authorization server's authorization_endpoint", d.meta.AuthorizationEndpoint, clearAuthorize},
		{"the authorization server's token_endpoint", d.meta.TokenEndpoint, clearToken},
		{"the authorization server's registration_endpoint", d.meta.RegistrationEndpoint, clearRegistration},
		{"the authorization server's revocation_endpoint", d.meta.RevocationEndpoint, clearRevocation},
	} {
		if e.url == "" {
			continue
		}
		if err := o.checkEndpoint(e.field, e.url, e.clear); err != nil {
			return err
		}
	}
	return nil
}

// clearGuard is the authorization servers' client's transport: it sends
// nothing over plain http to another machine, whatever URL or redirect
// asks for it.
type clearGuard struct {
	server string
	base   http.RoundTripper
}

// RoundTrip refuses r when it would travel in clear, else sends it.
func (g clearGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	if PlainRemote(r.URL) {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		e := &plainError{server: g.server, target: r.URL}
		if r.Response != nil && r.Response.Request != nil {
			e.from = r.Response.Request.URL
		}
		return nil, e
	}
	return g.base.RoundTrip(r)
}

// guarded is c with its transport behind a clearGuard.
func guarded(c *http.Client, server string) *http.Client {
	g := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	g.Transport = clearGuard{server: server, base: base}
	return &g
}

// plainError is a request to an authorization server over plain http to
// another machine, refused. It names scheme and host only.
type plainError struct {
	server       string
	target, from *url.URL // from: the URL that redirected there, if one did
}

// Error says which server, where to and, for a redirect, from where.
func (e *plainError) Error() string {
	to := e.target.Scheme + "://" + e.target.Host
	if e.from != nil {
		return fmt.Sprintf("server %q: %s://%s redirected to %s, plain http to another machine: refused",
			e.server, e.from.Scheme, e.from.Host, to)
	}
	return fmt.Sprintf("server %q: a request to %s, plain http to another machine: refused", e.server, to)
}
