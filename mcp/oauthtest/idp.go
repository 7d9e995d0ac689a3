package oauthtest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
)

// The grant and token types of enterprise-managed authorization.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// idpHandler is the identity provider: its token endpoint exchanges
// Config.IDToken for an ID-JAG for the AS (audience) and the MCP server
// (resource), and refuses anything else.
func (s *Server) idpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		f := func(k string) string { return r.PostFormValue(k) }
		switch {
		case f("grant_type") != grantTokenExchange:
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		case f("subject_token") != s.cfg.IDToken || f("subject_token_type") != tokenTypeIDToken:
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "unknown ID token"})
		case f("requested_token_type") != tokenTypeIDJAG || f("audience") != s.AS.URL || f("resource") != s.URL():
			writeJSON(w, 400, map[string]string{"error": "invalid_request", "error_description": "wrong token type, audience or resource"})
		default:
			jag := "jag-" + random()
			s.mu.Lock()
			s.jags[jag] = true
			s.Exchanges++
			s.Tokens = append(s.Tokens, jag)
			s.mu.Unlock()
			writeJSON(w, 200, map[string]string{"access_token": jag, "issued_token_type": tokenTypeIDJAG, "token_type": "N_A"})
		}
	})
	return mux
}

// jwtBearer checks a JWT bearer grant (s.mu held): the pre-registered
// client authenticated with HTTP Basic, and an ID-JAG the IDP issued, used
// once. It answers the error itself and reports false.
func (s *Server) jwtBearer(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.WorkloadJWT != "" {
		return s.workloadBearer(w, r)
	}
	id, _, ok := r.BasicAuth()
	if !ok || id != s.cfg.ClientID {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return false
	}
	jag := r.PostFormValue("assertion")
	if !s.jags[jag] {
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "unknown ID-JAG"})
		return false
	}
	delete(s.jags, jag)
	s.JWTBearers++
	return true
}

// workloadBearer checks a workload's JWT bearer grant (s.mu held): the
// pre-registered client (its ID in the form: no secret) and
// Config.WorkloadJWT as the assertion. Every attempt is counted in
// WorkloadGrants; it answers the error itself and reports false.
func (s *Server) workloadBearer(w http.ResponseWriter, r *http.Request) bool {
	s.WorkloadGrants++
	switch {
	case r.PostFormValue("client_id") != s.cfg.ClientID:
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return false
	case r.PostFormValue("assertion") != s.cfg.WorkloadJWT:
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "the workload JWT does not verify"})
		return false
	}
	s.JWTBearers++
	return true
}

// recorded notes every request h gets in s.Seen[name].
func (s *Server) recorded(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var b strings.Builder
		b.WriteString(r.URL.String() + "\n")
		_ = r.Header.Write(&b)
		if id, secret, ok := r.BasicAuth(); ok {
			b.WriteString("basic: " + id + ":" + secret + "\n")
		}
		b.Write(body)
		s.mu.Lock()
		s.Seen[name] = append(s.Seen[name], b.String())
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}
