package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
)

// login gets new tokens: with the client's own credentials for
// client_credentials, an exchanged ID token for enterprise, else in a
// browser (authorization code with PKCE).
// ch is the challenge that asked for it (its scope is asked for); extra
// scopes are added (a step-up asks for the union).
func (o *State) login(ctx context.Context, ch challenge, extra []string) error {
	o.loginMu.Lock()
	defer o.loginMu.Unlock()
	d, err := o.discover(ctx)
	if err != nil {
		return err
	}
	switch o.cfg.grant() {
	case GrantClientCredentials:
		return o.clientCredentials(ctx, d, ch, extra)
	case GrantEnterprise:
		return o.enterprise(ctx, d, ch, extra) // enterprise.go
	case GrantWorkload:
		return o.workload(ctx, d, ch, extra) // workload.go
	}
	if o.browser == nil {
		return ErrNoLogin
	}
	return o.authorizeInBrowser(ctx, d, ch, extra)
}

// authorizeInBrowser runs the authorization code flow: a loopback
// listener for the one callback, the URL opened in the browser (and
// shown), then the code exchanged for tokens.
func (o *State) authorizeInBrowser(ctx context.Context, d *discovery, ch challenge, extra []string) error {
	cb, err := listenCallback()
	if err != nil {
		return err
	}
	defer cb.close()
	client, err := o.identify(ctx, d, cb.redirect)
	if err != nil {
		return err
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	o.red.Add(verifier)
	scope := strings.Join(unionScopes(strings.Fields(o.requestedScope(d, ch)), extra), " ")
	q := url.Values{"response_type": {"code"}, "client_id": {client.id}, "redirect_uri": {cb.redirect},
		"state": {state}, "code_challenge": {transport.GenerateCodeChallenge(verifier)},
		"code_challenge_method": {"S256"}, "resource": {d.resource}}
	if scope != "" {
		q.Set("scope", scope)
	}
	authURL := d.meta.AuthorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}
	cb.expect(state, d.meta.Issuer, d.meta.ISSSupported)
	o.onURL(authURL)
	// A browser that cannot be opened is no failure: the URL is shown, to
	// be opened by hand (a remote terminal).
	_ = o.browser(ctx, authURL)
	wait, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	code, err := cb.wait(wait)
	if err != nil {
		return err
	}
	o.red.Add(code)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb.redirect},
		"code_verifier": {verifier}, "resource": {d.resource}}
	return o.tokenRequest(ctx, d, client, form, scope)
}

// clientCredentials gets a token with the client's own credentials.
func (o *State) clientCredentials(ctx context.Context, d *discovery, ch challenge, extra []string) error {
	client, err := o.identify(ctx, d, "")
	if err != nil {
		return err
	}
	scope := strings.Join(unionScopes(strings.Fields(o.requestedScope(d, ch)), extra), " ")
	form := url.Values{"grant_type": {GrantClientCredentials}, "resource": {d.resource}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return o.tokenRequest(ctx, d, client, form, scope)
}

// renew gets a fresh access token without a person: with the refresh
// token, or the headless grant (client_credentials, enterprise) again. stale is the token the caller saw:
// when another refresh replaced it meanwhile, that one is used.
func (o *State) renew(ctx context.Context, stale string) (string, error) {
	o.refreshMu.Lock()
	defer o.refreshMu.Unlock()
	rec := o.record()
	if rec.AccessToken != stale && rec.AccessToken != "" {
		return rec.AccessToken, nil
	}
	d, err := o.discover(ctx)
	if err != nil {
		return "", err
	}
	if held := rec.heldFor(d.meta.Issuer); held.RefreshToken != rec.RefreshToken {
		if !o.cfg.headless() {
			o.setExpired(fmt.Sprintf("its authorization server is now %s: log in there", d.meta.Issuer))
			return "", ErrNoLogin
		}
		rec = held
	}
	if rec.RefreshToken == "" {
		switch o.cfg.grant() {
		case GrantClientCredentials:
			err := o.clientCredentials(ctx, d, challenge{}, strings.Fields(rec.Scope))
			return o.record().AccessToken, err
		case GrantEnterprise:
			err := o.enterprise(ctx, d, challenge{}, strings.Fields(rec.Scope))
			return o.record().AccessToken, err
		case GrantWorkload:
			err := o.workload(ctx, d, challenge{}, strings.Fields(rec.Scope))
			return o.record().AccessToken, err
		}
		return "", ErrNoLogin
	}
	client := clientIdentity{id: rec.ClientID, secret: rec.ClientSecret, method: rec.AuthMethod}
	if o.cfg.ClientID != "" {
		if client, err = o.configuredClient(ctx, d); err != nil {
			return "", err
		}
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rec.RefreshToken}, "resource": {d.resource}}
	if err := o.tokenRequest(ctx, d, client, form, rec.Scope); err != nil {
		o.setExpired("the refresh failed: " + err.Error())
		return "", err
	}
	return o.record().AccessToken, nil
}

// tokenRequest posts form to the token endpoint with the client's
// authentication and keeps the tokens it answers.
func (o *State) tokenRequest(ctx context.Context, d *discovery, c clientIdentity, form url.Values, scope string) error {
	if err := o.authenticate(form, c, d); err != nil {
		return err
	}
	build := func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.meta.TokenEndpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if c.method == "client_secret_basic" {
			req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
		}
		return req, nil
	}
	var resp *http.Response
	var err error
	if o.dpop != nil {
		resp, err = o.dpop.sendDPoP(noRedirect(o.http).Do, build, "")
	} else if req, berr := build(); berr != nil {
		return berr
	} else {
		resp, err = noRedirect(o.http).Do(req)
	}
	if err != nil {
		return fmt.Errorf("token request: %s", o.red.Apply(err.Error()))
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	var t transport.Token
	if resp.StatusCode/100 != 2 || json.Unmarshal(raw, &t) != nil || t.AccessToken == "" {
		o.redactTokenBody(raw)
		return fmt.Errorf("the token request was refused: %s", oauthErrorText(resp.StatusCode, raw))
	}
	o.red.Add(t.AccessToken, t.RefreshToken)
	dpop := o.dpop != nil && strings.EqualFold(t.TokenType, "DPoP")
	if t.TokenType != "" && !strings.EqualFold(t.TokenType, "Bearer") && !dpop {
		return fmt.Errorf("the authorization server issued a %q token; latch sends Bearer tokens (and DPoP ones with \"dpop\": true)", t.TokenType)
	}
	rec := o.record().heldFor(d.meta.Issuer) // nothing of another issuer's login is kept with this one's
	rec.ClientID, rec.ClientSecret, rec.AuthMethod = c.id, c.secret, c.method
	if o.cfg.ClientID != "" {
		rec.ClientSecret = "" // a configured secret stays in its source
	}
	rec.Issuer, rec.TokenURL, rec.RevokeURL, rec.Resource = d.meta.Issuer, d.meta.TokenEndpoint, d.meta.RevocationEndpoint, d.resource
	rec.setToken(&t, scope)
	rec.TokenType, rec.DPoPKey = "", ""
	if dpop {
		rec.TokenType, rec.DPoPKey = "DPoP", o.dpop.pem
	}
	return o.setRecord(rec)
}

// redactTokenBody learns any token an error answer carries anyway.
func (o *State) redactTokenBody(raw []byte) {
	var t transport.Token
	if json.Unmarshal(raw, &t) == nil {
		o.red.Add(t.AccessToken, t.RefreshToken)
	}
}

// authenticate adds the client's authentication to a token request's
// form: its ID (and secret for client_secret_post, or a signed assertion
// for private_key_jwt); client_secret_basic goes in a header instead.
func (o *State) authenticate(form url.Values, c clientIdentity, d *discovery) error {
	switch c.method {
	case "client_secret_basic":
		return nil
	case "client_secret_post":
		form.Set("client_id", c.id)
		form.Set("client_secret", c.secret)
	case "private_key_jwt":
		a, err := clientAssertion(c.id, d.meta.Issuer, c.key)
		if err != nil {
			return err
		}
		o.red.Add(a)
		form.Set("client_id", c.id)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", a)
	default:
		form.Set("client_id", c.id)
	}
	return nil
}

// revoke revokes the record's tokens (RFC 7009) where the authorization
// server supports it; failures are only reported. A redirect is not
// followed: the tokens go to the revocation endpoint only.
func (o *State) revoke(ctx context.Context, rec authRecord) error {
	if rec.RevokeURL == "" {
		return nil
	}
	if err := o.checkEndpoint("the stored revocation_endpoint", rec.RevokeURL, clearRevocation); err != nil {
		return err
	}
	c := clientIdentity{id: rec.ClientID, secret: rec.ClientSecret, method: rec.AuthMethod}
	d := &discovery{meta: asMetadata{}}
	d.meta.Issuer = rec.Issuer
	if o.cfg.ClientID != "" {
		var err error
		if c, err = o.configuredClient(ctx, d); err != nil {
			return err
		}
	}
	var firstErr error
	for _, t := range []struct{ tok, hint string }{{rec.RefreshToken, "refresh_token"}, {rec.AccessToken, "access_token"}} {
		if t.tok == "" {
			continue
		}
		form := url.Values{"token": {t.tok}, "token_type_hint": {t.hint}}
		if err := o.authenticate(form, c, d); err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevokeURL, strings.NewReader(form.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if c.method == "client_secret_basic" {
			req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
		}
		resp, err := noRedirect(o.http).Do(req)
		if err != nil {
			firstErr = fmt.Errorf("revocation: %s", o.red.Apply(err.Error()))
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK && firstErr == nil {
			firstErr = fmt.Errorf("revocation refused (HTTP %d)", resp.StatusCode)
		}
	}
	return firstErr
}
