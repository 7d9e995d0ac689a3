package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"
)

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
	if err := s.auth.login(ctx, s.auth.lastChallenge(), nil); err != nil {
		if errors.Is(err, errNoLogin) {
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
	o := s.auth
	rec := o.record()
	ctx, cancel := context.WithTimeout(ctx, oauthHTTPTimeout)
	defer cancel()
	revokeErr := o.revoke(ctx, rec)
	o.mu.Lock()
	o.rec = authRecord{}
	o.expired = "logged out"
	o.mu.Unlock()
	var rmErr error
	if o.store != nil {
		rmErr = o.store.remove()
	}
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

// reason says why the server's login does not work.
func (o *oauthState) reason() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.expired != "":
		return o.expired
	case o.rec.AccessToken == "" && o.rec.RefreshToken == "":
		return "not logged in"
	}
	return "the server refused the token (401)"
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

// LoginText says who is logged in to an OAuth server and until when, for
// /servers ("" for a server without OAuth, and for one that never asked
// for a login and has none).
func (l LoginInfo) LoginText(now time.Time) string {
	switch {
	case !l.OAuth, !l.LoggedIn && !l.Needed:
		return ""
	case !l.LoggedIn:
		return "not logged in"
	}
	out := "logged in"
	if l.Client != "" {
		out += " as client " + l.Client
	}
	if l.IDP != "" {
		out += " through " + l.IDP
	}
	if !l.Until.IsZero() {
		if l.Until.After(now) {
			out += ", token until " + l.Until.Local().Format("15:04")
		} else {
			out += ", token expired"
		}
	}
	if l.Refresh {
		out += " (refreshes itself)"
	}
	if l.Scope != "" {
		out += "; scopes: " + l.Scope
	}
	if l.Problem != "" {
		out += "; " + l.Problem
	}
	return out
}

// withLogin fills in an OAuth server's login on a status change.
func (m *Manager) withLogin(e Event) Event {
	if sc, ok := e.(StatusChanged); ok {
		if s := m.servers[sc.Status.Name]; s != nil && s.auth != nil {
			sc.Status.Login = s.auth.info()
			return sc
		}
	}
	return e
}
