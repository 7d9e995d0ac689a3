package mcp

import (
	"context"
	"errors"
	"fmt"

	"latch/mcp/oauth"
)

// Values of ServerConfig.Auth, Grant and Store.
const (
	AuthOAuth = oauth.AuthOAuth // log in with OAuth (MCP authorization)
	AuthNone  = oauth.AuthNone  // never log in: a 401 is only reported

	GrantAuthorizationCode = oauth.GrantAuthorizationCode // a person logs in in a browser
	GrantClientCredentials = oauth.GrantClientCredentials // the client's own credentials, no browser
	GrantEnterprise        = oauth.GrantEnterprise        // an enterprise ID token exchanged for an ID-JAG; no browser
	GrantWorkload          = oauth.GrantWorkload          // the workload's own JWT (JWT bearer grant); no browser

	StoreFile   = "file"   // tokens kept in $XDG_STATE_HOME/latch/auth/<server>.json
	StoreMemory = "memory" // tokens kept in memory only
)

// LoginInfo is what /servers says of a server's OAuth login.
type LoginInfo = oauth.LoginInfo

// usesOAuth reports whether cfg may log in with OAuth: an HTTP or SSE
// server with no static credential and not auth "none".
func (c ServerConfig) usesOAuth() bool {
	t := transportName(c.Transport)
	if (t != TransportHTTP && t != TransportSSE) || c.Auth == AuthNone {
		return false
	}
	return c.Auth == AuthOAuth || !c.hasCredential() && !c.hasAuthHeader()
}

// newOAuthState makes the OAuth session of cfg (package oauth) and loads
// what an earlier login stored; its login URLs are LoginURL events.
func (m *Manager) newOAuthState(cfg ServerConfig) *oauth.State {
	opts := oauth.Options{HTTP: m.opts.OAuthHTTP, Redactor: oauthRedactor{m.red}, Browser: m.opts.OpenBrowser,
		OnURL: func(u string) { m.emit(LoginURL{Server: cfg.Name, URL: u}) },
		Resolve: func(ctx context.Context, field string, src oauth.Source) (string, error) {
			return resolveSecret(ctx, field, secretSource{src.Literal, src.Env, src.File, src.Command}, m.opts.Getenv)
		}}
	if cfg.Store != StoreMemory {
		opts.Dir = m.opts.AuthDir
	}
	return oauth.New(oauthConfig(cfg), opts)
}

// oauthConfig is cfg's OAuth fields, as package oauth takes them.
func oauthConfig(cfg ServerConfig) oauth.Config {
	return oauth.Config{Name: cfg.Name, URL: cfg.URL, Auth: cfg.Auth, Grant: cfg.Grant,
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, ClientSecretEnv: cfg.ClientSecretEnv,
		ClientSecretFile: cfg.ClientSecretFile, ClientSecretCommand: cfg.ClientSecretCommand,
		ClientKeyFile: cfg.ClientKeyFile, ClientMetadataURL: cfg.ClientMetadataURL, Scopes: cfg.Scopes, DPoP: cfg.DPoP,
		IDPTokenURL: cfg.IDPTokenURL, IDPClientID: cfg.IDPClientID, IDPClientSecret: cfg.IDPClientSecret,
		IDPClientSecretEnv: cfg.IDPClientSecretEnv, IDPClientSecretFile: cfg.IDPClientSecretFile,
		IDPClientSecretCommand: cfg.IDPClientSecretCommand, IDToken: cfg.IDToken, IDTokenEnv: cfg.IDTokenEnv,
		IDTokenFile: cfg.IDTokenFile, IDTokenCommand: cfg.IDTokenCommand, WorkloadToken: cfg.WorkloadToken,
		WorkloadTokenEnv: cfg.WorkloadTokenEnv, WorkloadTokenFile: cfg.WorkloadTokenFile,
		WorkloadTokenCommand: cfg.WorkloadTokenCommand}
}

// oauthRedactor is the manager's redactor as package oauth takes it.
type oauthRedactor struct{ r *redactor }

// Add learns credentials.
func (o oauthRedactor) Add(secrets ...string) { o.r.add(secrets...) }

// Apply hides every known credential in s.
func (o oauthRedactor) Apply(s string) string { return o.r.apply(s) }

// Login logs in to an OAuth server: in the browser (the URL is also
// reported as a LoginURL event), or with the client's own credentials for
// client_credentials; then it connects the server. It returns when the
// server is connected or the login failed (it was cancelled with ctx, or
// no callback came within five minutes).
func (m *Manager) Login(ctx context.Context, name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	if m.shut.Load() {
		return ErrShutDown
	}
	if s.auth == nil {
		return notOAuth(s.cfg)
	}
	if err := s.auth.Login(ctx); err != nil {
		if errors.Is(err, oauth.ErrNoLogin) {
			return fmt.Errorf("%s needs a login in a browser, which latch -p cannot open: run latch, then /login %s", name, name)
		}
		return fmt.Errorf("login to %s failed: %s", name, m.red.apply(err.Error()))
	}
	return m.Connect(name)
}

// Logout forgets a server's OAuth login: its tokens are revoked where the
// authorization server supports revocation, deleted from memory and disk,
// and the server is closed. A revocation that fails is returned, but the
// tokens are gone from latch all the same.
func (m *Manager) Logout(ctx context.Context, name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	if s.auth == nil {
		return notOAuth(s.cfg)
	}
	revokeErr, rmErr := s.auth.Logout(ctx)
	m.closeServer(s)
	if rmErr != nil {
		return fmt.Errorf("logged out of %s, but the stored login could not be deleted: %v", name, rmErr)
	}
	if revokeErr != nil {
		return fmt.Errorf("logged out of %s (tokens deleted), but %s", name, m.red.apply(revokeErr.Error()))
	}
	return nil
}

// notOAuth says why a server has no OAuth login.
func notOAuth(c ServerConfig) error {
	switch t := transportName(c.Transport); {
	case t != TransportHTTP && t != TransportSSE:
		return fmt.Errorf("%s is a %s server: only HTTP servers log in (OAuth)", c.Name, t)
	case c.Auth == AuthNone:
		return fmt.Errorf("%s has auth \"none\": it does not log in", c.Name)
	}
	return fmt.Errorf("%s has a configured token: it does not log in (remove the token, or set auth to \"oauth\")", c.Name)
}

// loginSummary is an OAuth server's summary in the auth-expired state:
// what to run to log in again.
func (s Status) loginSummary() string {
	why := s.Reason
	if why == "" {
		why = "not logged in"
	}
	if !s.Login.Browser {
		return fmt.Sprintf("auth expired (%s): this server needs a login in a browser: run latch, then /login %s", why, s.Name)
	}
	return fmt.Sprintf("auth expired (%s): /login %s", why, s.Name)
}

// withLogin fills in an OAuth server's login on a status change.
func (m *Manager) withLogin(e Event) Event {
	if sc, ok := e.(StatusChanged); ok {
		if s := m.servers[sc.Status.Name]; s != nil && s.auth != nil {
			sc.Status.Login = s.auth.Info()
			return sc
		}
	}
	return e
}
