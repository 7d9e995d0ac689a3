package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// clientIdentity is who latch is at the authorization server.
type clientIdentity struct {
	id, secret string
	method     string // token_endpoint_auth_method
	key        string // PEM private key: private_key_jwt
}

// identify picks the client, in the spec's order of preference: the
// configured (pre-registered) client, a client ID metadata document the
// server supports, a client registered before (kept with the tokens),
// dynamic registration (RFC 7591).
func (o *State) identify(ctx context.Context, d *discovery, redirect string) (clientIdentity, error) {
	if o.cfg.ClientID != "" {
		return o.configuredClient(ctx, d)
	}
	if o.cfg.ClientMetadataURL != "" && d.meta.CIMDSupported {
		return clientIdentity{id: o.cfg.ClientMetadataURL, method: "none"}, nil
	}
	if rec := o.record().heldFor(d.meta.Issuer); rec.ClientID != "" && rec.TokenURL == d.meta.TokenEndpoint {
		return clientIdentity{id: rec.ClientID, secret: rec.ClientSecret, method: rec.AuthMethod}, nil
	}
	if d.meta.RegistrationEndpoint == "" {
		return clientIdentity{}, fmt.Errorf("the authorization server offers no dynamic client registration: set client_id (and a client secret) for this server")
	}
	return o.register(ctx, d, redirect)
}

// configuredClient is the pre-registered client, its secret or key read
// now from its source.
func (o *State) configuredClient(ctx context.Context, d *discovery) (clientIdentity, error) {
	c := clientIdentity{id: o.cfg.ClientID}
	secret, err := o.resolve(ctx, "client_secret", Source{o.cfg.ClientSecret, o.cfg.ClientSecretEnv,
		o.cfg.ClientSecretFile, o.cfg.ClientSecretCommand})
	if err != nil {
		return c, err
	}
	o.red.Add(secret)
	c.secret = secret
	if o.cfg.ClientKeyFile != "" {
		key, err := o.resolve(ctx, "client_key", Source{File: o.cfg.ClientKeyFile})
		if err != nil {
			return c, err
		}
		o.red.Add(key)
		c.key, c.method = key, "private_key_jwt"
		return c, nil
	}
	c.method = pickAuthMethod(secret != "", d.meta.TokenEndpointAuthMethodsSupported)
	return c, nil
}

// pickAuthMethod is how a client with or without a secret authenticates
// at a token endpoint that lists supported (HTTP Basic when it lists
// nothing, OAuth's default).
func pickAuthMethod(hasSecret bool, supported []string) string {
	if !hasSecret {
		return "none"
	}
	if slices.Contains(supported, "client_secret_post") && !slices.Contains(supported, "client_secret_basic") {
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// register registers latch as a client (RFC 7591) and keeps what the
// server answered.
func (o *State) register(ctx context.Context, d *discovery, redirect string) (clientIdentity, error) {
	grants := []string{"authorization_code", "refresh_token"}
	if o.cfg.grant() == GrantClientCredentials {
		grants = []string{GrantClientCredentials}
	}
	// latch runs on the person's own machine and logs in through a
	// loopback redirect: a native application (SEP-837, OpenID Connect
	// Dynamic Client Registration's application_type).
	body := map[string]any{
		"client_name": "latch", "grant_types": grants, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none", "application_type": "native",
	}
	if redirect != "" {
		body["redirect_uris"] = []string{redirect}
	}
	if s := o.requestedScope(d, challenge{}); s != "" {
		body["scope"] = s
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.meta.RegistrationEndpoint, bytes.NewReader(b))
	if err != nil {
		return clientIdentity{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := o.http.Do(req)
	if err != nil {
		return clientIdentity{}, fmt.Errorf("client registration: %v", o.red.Apply(err.Error()))
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return clientIdentity{}, fmt.Errorf("client registration refused: %s", oauthErrorText(resp.StatusCode, raw))
	}
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ClientID == "" {
		return clientIdentity{}, fmt.Errorf("client registration: the answer has no client_id")
	}
	o.red.Add(r.ClientSecret)
	c := clientIdentity{id: r.ClientID, secret: r.ClientSecret, method: r.Method}
	if c.method == "" {
		c.method = pickAuthMethod(c.secret != "", d.meta.TokenEndpointAuthMethodsSupported)
	}
	return c, nil
}

// requestedScope is the scope to ask for, in the spec's order: the
// challenge's scope, else the resource's scopes_supported; the configured
// scopes are always added, and offline_access when the authorization
// server lists it and the browser flow is used (for a refresh token).
func (o *State) requestedScope(d *discovery, ch challenge) string {
	var scopes []string
	switch {
	case ch.scope != "":
		scopes = strings.Fields(ch.scope)
	case len(d.scopes) > 0:
		scopes = slices.Clone(d.scopes)
	}
	scopes = unionScopes(scopes, o.cfg.Scopes)
	if len(scopes) > 0 && o.cfg.grant() == GrantAuthorizationCode && slices.Contains(d.meta.ScopesSupported, "offline_access") {
		scopes = unionScopes(scopes, []string{"offline_access"})
	}
	return strings.Join(scopes, " ")
}

// unionScopes is a followed by the scopes of b it lacks.
func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// oauthErrorText describes an authorization server's error answer: its
// OAuth error code and description, or the HTTP status.
func oauthErrorText(status int, body []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		if e.Description != "" {
			return e.Error + ": " + truncate(e.Description, 200)
		}
		return e.Error
	}
	return fmt.Sprintf("HTTP %d", status)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
