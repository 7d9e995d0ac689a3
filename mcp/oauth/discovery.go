package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
)

// maxMetadataBytes caps a metadata document or token response.
const maxMetadataBytes = 1 << 20

// challenge is what a 401 or 403's WWW-Authenticate: Bearer said.
type challenge struct {
	bearer           bool   // a Bearer challenge was sent
	resourceMetadata string // RFC 9728 resource_metadata
	scope            string
	err              string // e.g. insufficient_scope
}

// parseChallenge reads the Bearer challenge of h's WWW-Authenticate lines.
func parseChallenge(h http.Header) challenge {
	var c challenge
	for _, line := range h.Values("WWW-Authenticate") {
		scheme, params, _ := strings.Cut(strings.TrimSpace(line), " ")
		if !strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "DPoP") {
			continue
		}
		c.bearer = true
		for k, v := range authParams(params) {
			switch strings.ToLower(k) {
			case "resource_metadata":
				c.resourceMetadata = v
			case "scope":
				c.scope = v
			case "error":
				c.err = v
			}
		}
	}
	return c
}

// authParams splits `a="x, y", b=z` into its parameters.
func authParams(s string) map[string]string {
	out := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimLeft(s, ", ") {
		k, rest, ok := strings.Cut(s, "=")
		if !ok {
			break
		}
		k, rest = strings.TrimSpace(k), strings.TrimSpace(rest)
		var v string
		if strings.HasPrefix(rest, `"`) {
			end := 1
			for end < len(rest) && rest[end] != '"' {
				if rest[end] == '\\' {
					end++
				}
				end++
			}
			v = strings.ReplaceAll(rest[1:min(end, len(rest))], `\`, "")
			rest = rest[min(end+1, len(rest)):]
		} else {
			v, rest, _ = strings.Cut(rest, ",")
			v = strings.TrimSpace(v)
		}
		out[k] = v
		s = rest
	}
	return out
}

// discovery is what latch learned of a server's authorization: the
// authorization server's metadata, the resource to ask tokens for, and
// the scopes the resource says it supports.
type discovery struct {
	meta     asMetadata
	resource string
	scopes   []string // the protected resource's scopes_supported
	legacy   bool     // no resource metadata: the 2025-03-26 fallbacks
}

// asMetadata is RFC 8414 authorization server metadata, with the fields
// mcp-go's type lacks.
type asMetadata struct {
	transport.AuthServerMetadata
	CIMDSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	ISSSupported  bool `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// prmDocument is RFC 9728 protected resource metadata.
type prmDocument struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// discover finds the authorization server: the protected resource
// metadata from the challenge's URL, else the well-known URIs with and
// without the server's path; then its authorization server's metadata
// (RFC 8414, then OpenID discovery). A server without resource metadata
// gets the 2025-03-26 fallbacks: metadata at its origin, else /authorize,
// /token and /register there. Each URL is refused before it is used when
// it is plain http to another machine (checkEndpoint).
func (o *State) discover(ctx context.Context) (*discovery, error) {
	o.mu.Lock()
	d, ch := o.disc, o.challenge
	o.mu.Unlock()
	if d != nil {
		return d, nil
	}
	server, err := url.Parse(o.cfg.URL)
	if err != nil || server.Host == "" {
		return nil, fmt.Errorf("bad url %q", o.cfg.URL)
	}
	if err := o.checkEndpoint("its url", o.cfg.URL, clearURL); err != nil {
		return nil, err
	}
	prm, err := o.findPRM(ctx, server, ch)
	if err != nil {
		return nil, err
	}
	if prm == nil {
		d, err = o.legacyDiscovery(ctx, server)
	} else {
		d, err = o.asDiscovery(ctx, server, prm)
	}
	if err == nil {
		err = o.checkEndpoints(d) // endpoints.go
	}
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.disc = d
	o.mu.Unlock()
	return d, nil
}

// prmURLs are the places to look for the resource metadata, in order.
func prmURLs(server *url.URL, ch challenge) []string {
	var out []string
	if ch.resourceMetadata != "" {
		out = append(out, ch.resourceMetadata)
	}
	root := server.Scheme + "://" + server.Host + "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(server.EscapedPath(), "/"); p != "" {
		out = append(out, root+p)
	}
	return append(out, root)
}

// findPRM fetches the resource metadata; nil when there is none. A
// document that names another resource is refused: tokens for it would
// reach this server.
func (o *State) findPRM(ctx context.Context, server *url.URL, ch challenge) (*prmDocument, error) {
	if ch.resourceMetadata != "" {
		if err := o.checkEndpoint("the 401's resource_metadata", ch.resourceMetadata, clearPRM); err != nil {
			return nil, err
		}
	}
	for _, u := range prmURLs(server, ch) {
		var doc prmDocument
		ok, err := o.getJSON(ctx, u, &doc)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if doc.Resource != "" && !resourceBinds(doc.Resource, server) {
			return nil, fmt.Errorf("its protected-resource metadata names another resource (%s): refused", doc.Resource)
		}
		return &doc, nil
	}
	return nil, nil
}

// resourceBinds reports whether resource names the server at u: the same
// origin, and a path that is u's or a parent of it.
func resourceBinds(resource string, u *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || !OriginOf(r).equal(OriginOf(u)) {
		return false
	}
	rp, up := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(u.Path, "/")
	return rp == "" || rp == up || strings.HasPrefix(up, rp+"/")
}

// Origin is a URL's scheme, host and port, lower-cased and with the
// scheme's default port filled in: what mcp compares a server's origin
// by, and a protected resource's.
type Origin struct{ Scheme, Host, Port string }

// OriginOf is u's origin.
func OriginOf(u *url.URL) Origin {
	o := Origin{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Hostname()), Port: u.Port()}
	if o.Port == "" {
		switch o.Scheme {
		case "http":
			o.Port = "80"
		case "https":
			o.Port = "443"
		}
	}
	return o
}

func (o Origin) equal(p Origin) bool { return o == p && o.Host != "" }

// asDiscovery fetches the metadata of the first authorization server the
// resource names, checking its issuer.
func (o *State) asDiscovery(ctx context.Context, server *url.URL, prm *prmDocument) (*discovery, error) {
	d := &discovery{resource: prm.Resource, scopes: prm.ScopesSupported}
	if d.resource == "" {
		d.resource = canonicalResource(server)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("its protected-resource metadata names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	if err := o.checkEndpoint("the resource metadata's authorization_servers", issuer, clearIssuer); err != nil {
		return nil, err
	}
	for _, u := range asMetadataURLs(issuer) {
		ok, err := o.getJSON(ctx, u, &d.meta)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if strings.TrimSuffix(d.meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("the authorization server's metadata names issuer %q, not %q: refused", d.meta.Issuer, issuer)
		}
		return d, checkMetadata(&d.meta)
	}
	return nil, fmt.Errorf("no authorization server metadata found for %s", issuer)
}

// legacyDiscovery is the 2025-03-26 way: metadata at the server's origin,
// else the default endpoints there.
func (o *State) legacyDiscovery(ctx context.Context, server *url.URL) (*discovery, error) {
	base := server.Scheme + "://" + server.Host
	d := &discovery{resource: canonicalResource(server), legacy: true}
	for _, u := range asMetadataURLs(base) {
		ok, err := o.getJSON(ctx, u, &d.meta)
		if err != nil {
			return nil, err
		}
		if ok {
			return d, checkMetadata(&d.meta)
		}
	}
	d.meta.Issuer = base
	d.meta.AuthorizationEndpoint = base + "/authorize"
	d.meta.TokenEndpoint = base + "/token"
	d.meta.RegistrationEndpoint = base + "/register"
	return d, nil
}

// canonicalResource is the server's URL as an RFC 8707 resource: no
// fragment, no query.
func canonicalResource(u *url.URL) string {
	c := *u
	c.Fragment, c.RawQuery = "", ""
	return c.String()
}

// asMetadataURLs are the metadata URLs of an issuer, in the spec's order:
// RFC 8414 and OpenID discovery with the path inserted, then OpenID with
// the path appended.
func asMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil
	}
	root := u.Scheme + "://" + u.Host
	p := strings.Trim(u.EscapedPath(), "/")
	if p == "" {
		return []string{root + "/.well-known/oauth-authorization-server", root + "/.well-known/openid-configuration"}
	}
	return []string{
		root + "/.well-known/oauth-authorization-server/" + p,
		root + "/.well-known/openid-configuration/" + p,
		root + "/" + p + "/.well-known/openid-configuration",
	}
}

// checkMetadata refuses metadata without a token endpoint, or that lacks
// PKCE with S256 (its endpoints' URLs are checkEndpoints').
func checkMetadata(m *asMetadata) error {
	if m.TokenEndpoint == "" {
		return fmt.Errorf("the authorization server's metadata has no token_endpoint")
	}
	if m.CodeChallengeMethodsSupported != nil && !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return fmt.Errorf("the authorization server does not support PKCE with S256: refused")
	}
	return nil
}

// getJSON GETs u into v: false (and no error) for an answer other than
// 200 or a body that is not JSON; an error when ctx ends or a redirect to
// plain http was refused.
func (o *State) getJSON(ctx context.Context, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, nil
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := o.http.Do(req)
	if err != nil {
		var plain *plainError
		switch {
		case ctx.Err() != nil:
			return false, ctx.Err()
		case errors.As(err, &plain):
			return false, plain
		}
		return false, nil
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return false, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if err != nil || json.Unmarshal(b, v) != nil {
		return false, nil
	}
	return true, nil
}
