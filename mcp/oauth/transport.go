package oauth

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// authTransport sends a server's requests with its OAuth access token
// (refreshed before it expires), and on the server's answer:
//
//   - 401: the challenge is kept for the next login; a token that can be
//     renewed without a person (refresh token, client_credentials) is,
//     and the request sent once more;
//   - 403 insufficient_scope: a login asking for the union of the scopes
//     held and asked for (a step-up), once per request, then the request
//     once more.
//
// It sits on the server's headerTransport, which refuses every other
// origin: the token only ever goes to the MCP server.
type authTransport struct {
	base http.RoundTripper
	o    *State
}

// RoundTrip sends r as described above.
func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := replayable(r)
	if err != nil {
		return nil, err
	}
	tok := t.o.token(r.Context())
	resp, err := t.send(r, body, tok)
	for stepUps := 0; err == nil; {
		ch := parseChallenge(resp.Header)
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			t.o.noteChallenge(ch, tok != "")
			if tok == "" && !t.o.cfg.headless() {
				return resp, nil
			}
			fresh, rerr := t.o.renewOrLogin(r.Context(), tok, ch)
			if rerr != nil || fresh == tok {
				return resp, nil
			}
			drain(resp)
			tok = fresh
			resp, err = t.send(r, body, tok)
			if err == nil && resp.StatusCode == http.StatusUnauthorized {
				t.o.setExpired("the server refused a fresh token (401)")
				return resp, nil
			}
		case resp.StatusCode == http.StatusForbidden && ch.err == "insufficient_scope" && stepUps < maxStepUps:
			stepUps++
			t.o.noteChallenge(ch, false)
			if t.o.login(r.Context(), ch, t.o.grantedScopes()) != nil {
				return resp, nil
			}
			drain(resp)
			tok = t.o.record().AccessToken
			resp, err = t.send(r, body, tok)
		default:
			return resp, nil
		}
	}
	return resp, err
}

// send sends a copy of r with body and the token: a DPoP-bound one with
// the DPoP scheme and a fresh proof (again with the server's nonce when
// it asks for one), any other as a Bearer token.
func (t *authTransport) send(r *http.Request, body []byte, tok string) (*http.Response, error) {
	dpop := t.o.dpop != nil && tok != "" && t.o.record().TokenType == "DPoP"
	build := func() (*http.Request, error) {
		r2 := r.Clone(r.Context())
		if body != nil {
			r2.Body = io.NopCloser(bytes.NewReader(body))
			r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		switch {
		case dpop:
			r2.Header.Set("Authorization", "DPoP "+tok)
		case tok != "":
			r2.Header.Set("Authorization", "Bearer "+tok)
		}
		return r2, nil
	}
	if dpop {
		return t.o.dpop.sendDPoP(t.base.RoundTrip, build, tok)
	}
	r2, _ := build()
	return t.base.RoundTrip(r2)
}

// replayable reads r's body so that it can be sent again.
func replayable(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	defer func() { _ = r.Body.Close() }()
	return io.ReadAll(r.Body)
}

// drain discards a response that is not passed on.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// noteChallenge keeps the server's challenge for the next discovery (a
// new resource metadata URL discovers again), and that it asked for a
// login. A refused token discovers again too: the resource may have moved
// to another authorization server (SEP-2352), whose issuer then holds
// none of the old login (authRecord.heldFor).
func (o *State) noteChallenge(ch challenge, refused bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.asked = true
	if refused {
		o.disc = nil
	}
	if !ch.bearer {
		return
	}
	if ch.resourceMetadata != "" && ch.resourceMetadata != o.challenge.resourceMetadata {
		o.disc = nil
	}
	o.challenge = ch
}

// lastChallenge is the server's last challenge.
func (o *State) lastChallenge() challenge {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.challenge
}

// renewOrLogin is a fresh token after a 401: renewed when it can be
// without a person, or for a headless grant got anew.
func (o *State) renewOrLogin(ctx context.Context, stale string, ch challenge) (string, error) {
	rec := o.record()
	if rec.RefreshToken != "" || (o.cfg.headless() && rec.AccessToken != "") {
		return o.renew(ctx, stale)
	}
	if o.cfg.headless() {
		if err := o.login(ctx, ch, nil); err != nil {
			o.setExpired(o.red.Apply(err.Error()))
			return "", err
		}
		return o.record().AccessToken, nil
	}
	if stale != "" {
		o.setExpired(o.refusedWhy(ctx))
	}
	return "", ErrNoLogin
}

// refusedWhy says why a token that cannot be renewed was refused: when
// the resource now names another authorization server (SEP-2352; the 401
// made discovery start afresh), that it moved and where to log in, as a
// refresh would have found; else only that it was refused. Either way
// the next login starts afresh at the issuer discovered.
func (o *State) refusedWhy(ctx context.Context) string {
	issuer := o.record().Issuer
	if d, err := o.discover(ctx); err == nil && issuer != "" && d.meta.Issuer != issuer {
		return fmt.Sprintf("its authorization server is now %s: log in there", d.meta.Issuer)
	}
	return "the server refused the token (401)"
}
