package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Enterprise-managed authorization (grant "enterprise") takes two token
// requests and no browser:
//
//  1. at the enterprise identity provider's token endpoint, a token
//     exchange (RFC 8693): the person's ID token for an identity
//     assertion JWT authorization grant (ID-JAG) naming the server's
//     authorization server (audience) and the server (resource);
//  2. at the authorization server's token endpoint, a JWT bearer grant
//     (RFC 7523) with the ID-JAG as the assertion, the configured client
//     authenticating as usual; the access token answered is used as any
//     other.
//
// The ID token goes only to the identity provider, the ID-JAG only to the
// authorization server; neither request follows a redirect, and both, as
// well as the identity provider's client secret, are redacted the moment
// they are read.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// enterprise gets a token with an ID-JAG for the person's ID token.
func (o *State) enterprise(ctx context.Context, d *discovery, ch challenge, extra []string) error {
	if o.cfg.ClientID == "" {
		return errors.New("grant \"enterprise\" needs client_id (the client registered at the authorization server)")
	}
	client, err := o.identify(ctx, d, "")
	if err != nil {
		return err
	}
	scope := strings.Join(unionScopes(strings.Fields(o.requestedScope(d, ch)), extra), " ")
	jag, err := o.exchangeIDToken(ctx, d, scope)
	if err != nil {
		return err
	}
	form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {jag}, "resource": {d.resource}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return o.tokenRequest(ctx, d, client, form, scope)
}

// exchangeIDToken trades the person's ID token, read now from its source,
// for an ID-JAG at the identity provider.
func (o *State) exchangeIDToken(ctx context.Context, d *discovery, scope string) (string, error) {
	c := o.cfg
	if c.IDPTokenURL == "" {
		return "", errors.New("grant \"enterprise\" needs idp_token_url (the identity provider's token endpoint)")
	}
	if err := o.checkEndpoint("its idp_token_url", c.IDPTokenURL, clearIDP); err != nil {
		return "", err
	}
	idToken, err := o.resolve(ctx, "id_token", Source{c.IDToken, c.IDTokenEnv, c.IDTokenFile, c.IDTokenCommand})
	if err != nil {
		return "", err
	}
	if idToken == "" {
		return "", errors.New("grant \"enterprise\" needs the ID token: set id_token_env, id_token_file or id_token_command")
	}
	o.red.Add(idToken)
	secret, err := o.resolve(ctx, "idp_client_secret", Source{c.IDPClientSecret, c.IDPClientSecretEnv,
		c.IDPClientSecretFile, c.IDPClientSecretCommand})
	if err != nil {
		return "", err
	}
	o.red.Add(secret)
	form := url.Values{"grant_type": {grantTokenExchange}, "requested_token_type": {tokenTypeIDJAG},
		"subject_token": {idToken}, "subject_token_type": {tokenTypeIDToken},
		"audience": {d.meta.Issuer}, "resource": {d.resource}}
	if scope != "" {
		form.Set("scope", scope)
	}
	if secret == "" && c.IDPClientID != "" {
		form.Set("client_id", c.IDPClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.IDPTokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("idp_token_url: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if secret != "" {
		req.SetBasicAuth(url.QueryEscape(c.IDPClientID), url.QueryEscape(secret))
	}
	resp, err := noRedirect(o.http).Do(req)
	if err != nil {
		return "", fmt.Errorf("token exchange at the identity provider: %s", o.red.Apply(err.Error()))
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	var r struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if resp.StatusCode/100 != 2 || json.Unmarshal(raw, &r) != nil || r.AccessToken == "" {
		o.redactTokenBody(raw)
		return "", fmt.Errorf("the identity provider refused the token exchange: %s", o.red.Apply(oauthErrorText(resp.StatusCode, raw)))
	}
	o.red.Add(r.AccessToken)
	if r.IssuedTokenType != tokenTypeIDJAG {
		return "", fmt.Errorf("the identity provider issued a %q token, not an identity assertion (ID-JAG)", r.IssuedTokenType)
	}
	return r.AccessToken, nil
}

// noRedirect is c not following redirects: a token request's body holds
// credentials for its endpoint's origin only.
func noRedirect(c *http.Client) *http.Client {
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cc
}

// idpHost is the identity provider's host for grant enterprise ("" for
// other grants).
func (o *State) idpHost() string {
	if o.cfg.grant() != GrantEnterprise {
		return ""
	}
	if u, err := url.Parse(o.cfg.IDPTokenURL); err == nil {
		return u.Host
	}
	return ""
}
