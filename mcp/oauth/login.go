package oauth

import (
	"context"
	"net/http"
	"time"
)

// Login logs in: in the browser (the URL told to Options.OnURL), or
// without a person for the headless grants, asking for the scope of the
// server's last challenge. It returns ErrNoLogin when the login needs a
// browser and none can be opened.
func (o *State) Login(ctx context.Context) error {
	return o.login(ctx, o.lastChallenge(), nil)
}

// Logout forgets the login: its tokens are revoked where the
// authorization server supports revocation, then deleted from memory and
// disk. It returns why the revocation failed and why the stored login
// could not be deleted; the tokens are gone from memory either way.
func (o *State) Logout(ctx context.Context) (revokeErr, removeErr error) {
	rec := o.record()
	ctx, cancel := context.WithTimeout(ctx, oauthHTTPTimeout)
	defer cancel()
	revokeErr = o.revoke(ctx, rec)
	o.mu.Lock()
	o.rec = authRecord{}
	o.expired = "logged out"
	o.mu.Unlock()
	if o.store != nil {
		removeErr = o.store.remove()
	}
	return revokeErr, removeErr
}

// Transport is base sending the server's requests with the login's
// access token (see authTransport).
func (o *State) Transport(base http.RoundTripper) http.RoundTripper {
	return &authTransport{base: base, o: o}
}

// Reason says why the server's login does not work.
func (o *State) Reason() string {
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
