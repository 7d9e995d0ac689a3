// Package oauthtest is a small OAuth 2.1 authorization server and an MCP
// server it protects, for tests: discovery (protected-resource metadata
// in the 401's header, at the path's well-known URI or at the root's),
// dynamic client registration or a pre-registered client, PKCE checked,
// the authorization endpoint approving at once (it redirects to the
// redirect URI with a code), refresh, client_credentials, revocation, a
// step-up scope for tools/call, DPoP-bound tokens and nonces (dpop.go),
// the RFC 9207 iss parameter (sent right,
// wrong or not at all), a move to a second authorization server
// (Migrate), and an enterprise identity provider for the token exchange
// and JWT bearer grant (idp.go).
package oauthtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Where the protected-resource metadata is found.
const (
	PRMInHeader = "header" // at a custom URL named in the 401
	PRMPath     = "path"   // /.well-known/oauth-protected-resource/mcp only
	PRMRoot     = "root"   // /.well-known/oauth-protected-resource only
)

// ISSOmit, given to SetISS, leaves iss out of the authorization response.
const ISSOmit = "omit"

// Config sets the servers' behaviour.
type Config struct {
	PRM          string        // PRMInHeader (default), PRMPath or PRMRoot
	NoDCR        bool          // no registration endpoint
	ClientID     string        // a pre-registered client (client_secret_basic)
	ClientSecret string        // its secret
	TTL          time.Duration // access tokens' lifetime (default 1 h)
	CallScope    string        // a scope tools/call needs beyond the others (step-up)
	NoRefresh    bool          // no refresh tokens: an expired login needs a person
	// IDToken is the person's ID token an identity provider (IDP) accepts
	// in a token exchange for an ID-JAG; set, the IDP is started and the
	// AS takes the JWT bearer grant (idp.go).
	IDToken string
	// ISSSupported advertises authorization_response_iss_parameter_supported
	// in the AS metadata (RFC 9207).
	ISSSupported bool
	// DPoP makes the AS issue DPoP-bound tokens only (RFC 9449): a token
	// request without a valid proof is refused, and the MCP server wants
	// the DPoP scheme and a proof by the token's key (dpop.go);
	// DPoPNonce makes both servers ask for a nonce first.
	DPoP, DPoPNonce bool
	// WorkloadJWT is the workload JWT the AS takes in a JWT bearer grant
	// from ClientID (workload identity; idp.go), when set.
	WorkloadJWT string
	// URLs replaces the URLs the servers name, by field: the 401's
	// "resource_metadata", the resource metadata's
	// "authorization_servers", and the authorization server metadata's
	// "authorization_endpoint", "token_endpoint", "registration_endpoint"
	// and "revocation_endpoint".
	URLs map[string]string
}

// Server is the authorization server (AS) and the MCP server (MCP), and
// with Config.IDToken an identity provider (IDP).
type Server struct {
	AS, MCP, IDP *httptest.Server
	// AS2 is the authorization server the resource moved to (Migrate);
	// nil until then.
	AS2 *httptest.Server
	cfg Config

	mu         sync.Mutex
	challenges map[string]string   // code challenge by code
	codes      map[string][]string // scopes by unused code
	access     map[string]token    // valid access tokens
	refresh    map[string]string   // scope by valid refresh token
	clients    map[string]string   // the AS ("as", "as2") by registered client ID
	issuedBy   map[string]string   // the AS by refresh token
	movedTo    string              // the AS the resource metadata names: "as" or "as2"
	iss        string              // SetISS
	jtis       map[string]bool     // the DPoP proofs' jti seen
	// DPoPProofs counts the valid DPoP proofs either server got.
	DPoPProofs int
	// WorkloadGrants counts the workload JWT bearer grants asked for.
	WorkloadGrants int
	// Registrations lists every dynamic client registration's request
	// body, decoded, with "_as" naming the AS it reached and "_client_id"
	// the client ID it got.
	Registrations []map[string]any
	// FailRefresh makes every refresh fail (invalid_grant).
	FailRefresh bool
	// Scopes lists the scope of every authorization request, in order.
	Scopes []string
	// Revoked lists the tokens revoked.
	Revoked []string
	// Refreshes counts the refresh grants that succeeded.
	Refreshes int
	// PKCEVerified counts code exchanges whose verifier matched.
	PKCEVerified int
	// Tokens lists every token issued (access, refresh and ID-JAG).
	Tokens []string
	// jags are the ID-JAGs the IDP issued, by value; Exchanges counts
	// them, JWTBearers the JWT bearer grants that succeeded.
	jags                  map[string]bool
	Exchanges, JWTBearers int
	// Seen lists every request each server ("as", "mcp", "idp") got:
	// its URL, headers (HTTP Basic credentials decoded) and body.
	Seen map[string][]string
}

type token struct {
	scope   []string
	expires time.Time
	as      string // the AS that issued it
	jkt     string // the DPoP key's thumbprint it is bound to ("" a Bearer token)
}

// New starts both servers; Close stops them.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, challenges: map[string]string{}, codes: map[string][]string{},
		access: map[string]token{}, refresh: map[string]string{}, clients: map[string]string{},
		issuedBy: map[string]string{}, movedTo: "as", jtis: map[string]bool{},
		jags: map[string]bool{}, Seen: map[string][]string{}}
	if cfg.TTL == 0 {
		s.cfg.TTL = time.Hour
	}
	s.AS = httptest.NewServer(s.recorded("as", s.asHandler("as")))
	s.MCP = httptest.NewServer(s.recorded("mcp", s.mcpHandler()))
	if cfg.IDToken != "" {
		s.IDP = httptest.NewServer(s.recorded("idp", s.idpHandler()))
	}
	return s
}

// URL is the MCP server's URL.
func (s *Server) URL() string { return s.MCP.URL + "/mcp" }

// Close stops both servers.
func (s *Server) Close() {
	s.MCP.CloseClientConnections()
	s.MCP.Close()
	s.AS.Close()
	if s.AS2 != nil {
		s.AS2.Close()
	}
	if s.IDP != nil {
		s.IDP.Close()
	}
}

// Invalidate makes every access token invalid (as a server restart or an
// early expiry would).
func (s *Server) Invalidate() {
	s.mu.Lock()
	s.access = map[string]token{}
	s.mu.Unlock()
}

// Migrate moves the resource to a second authorization server (SEP-2352):
// a new issuer with clients and tokens of its own, which the resource
// metadata names from now on; every access token is invalid.
func (s *Server) Migrate() {
	as2 := httptest.NewServer(s.recorded("as2", s.asHandler("as2")))
	s.mu.Lock()
	s.AS2, s.movedTo = as2, "as2"
	s.access = map[string]token{}
	s.mu.Unlock()
}

// SetISS sets the iss parameter of the authorization response: "" the
// AS's issuer (the default), ISSOmit none, anything else sent as it is.
func (s *Server) SetISS(iss string) {
	s.mu.Lock()
	s.iss = iss
	s.mu.Unlock()
}

// asURL is the URL (the issuer) of the AS named "as" or "as2".
func (s *Server) asURL(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == "as2" {
		return s.AS2.URL
	}
	return s.AS.URL
}

func random() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) asHandler(name string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		base := s.asURL(name)
		m := map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize",
			"token_endpoint": base + "/token", "revocation_endpoint": base + "/revoke",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials", grantJWTBearer},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "none"}}
		if !s.cfg.NoDCR {
			m["registration_endpoint"] = base + "/register"
		}
		if s.cfg.DPoP {
			m["dpop_signing_alg_values_supported"] = []string{"ES256"}
		}
		if s.cfg.ISSSupported {
			m["authorization_response_iss_parameter_supported"] = true
		}
		for _, k := range []string{"authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"} {
			if u, ok := s.cfg.URLs[k]; ok {
				m[k] = u
			}
		}
		writeJSON(w, 200, m)
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) { s.register(w, r, name) })
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) { s.authorize(w, r, name) })
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) { s.token(w, r, name) })
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.Revoked = append(s.Revoked, r.PostFormValue("token"))
		delete(s.access, r.PostFormValue("token"))
		delete(s.refresh, r.PostFormValue("token"))
		s.mu.Unlock()
	})
	return mux
}

func (s *Server) register(w http.ResponseWriter, r *http.Request, as string) {
	id := "dcr-" + random()
	body := map[string]any{}
	_ = json.NewDecoder(r.Body).Decode(&body)
	body["_as"], body["_client_id"] = as, id
	s.mu.Lock()
	s.clients[id] = as
	s.Registrations = append(s.Registrations, body)
	s.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": id, "token_endpoint_auth_method": "none"})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request, as string) {
	q := r.URL.Query()
	s.mu.Lock()
	known := s.clients[q.Get("client_id")] == as || (q.Get("client_id") == s.cfg.ClientID && s.cfg.ClientID != "")
	s.Scopes = append(s.Scopes, q.Get("scope"))
	s.mu.Unlock()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || !known || q.Get("code_challenge_method") != "S256" || q.Get("resource") == "" {
		http.Error(w, "bad authorization request", 400)
		return
	}
	code := random()
	s.mu.Lock()
	s.challenges[code] = q.Get("code_challenge")
	s.codes[code] = strings.Fields(q.Get("scope"))
	s.mu.Unlock()
	rq := redirect.Query()
	rq.Set("code", code)
	rq.Set("state", q.Get("state"))
	s.mu.Lock()
	iss := s.iss
	s.mu.Unlock()
	switch iss {
	case "":
		rq.Set("iss", s.asURL(as))
	case ISSOmit:
	default:
		rq.Set("iss", iss)
	}
	redirect.RawQuery = rq.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request, as string) {
	if r.PostFormValue("resource") == "" {
		writeJSON(w, 400, map[string]string{"error": "invalid_target"})
		return
	}
	if id, secret, ok := r.BasicAuth(); ok && (id != s.cfg.ClientID || secret != s.cfg.ClientSecret) {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return
	}
	jkt := ""
	if s.cfg.DPoP {
		var ok bool
		if jkt, ok = s.dpopToken(w, r, as); !ok {
			return
		}
	}
	var scope []string
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.PostFormValue("grant_type") {
	case "authorization_code":
		code := r.PostFormValue("code")
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		want, ok := s.challenges[code]
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != want {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
			return
		}
		s.PKCEVerified++
		scope = s.codes[code]
		delete(s.challenges, code)
		delete(s.codes, code)
	case "refresh_token":
		sc, ok := s.refresh[r.PostFormValue("refresh_token")]
		if !ok || s.FailRefresh || s.issuedBy[r.PostFormValue("refresh_token")] != as {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(s.refresh, r.PostFormValue("refresh_token"))
		s.Refreshes++
		scope = strings.Fields(sc)
	case "client_credentials":
		scope = strings.Fields(r.PostFormValue("scope"))
	case grantJWTBearer:
		if !s.jwtBearer(w, r) {
			return
		}
		scope = strings.Fields(r.PostFormValue("scope"))
	default:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at := "at-" + random()
	s.access[at] = token{scope: scope, expires: time.Now().Add(s.cfg.TTL), as: as, jkt: jkt}
	s.Tokens = append(s.Tokens, at)
	tokenType := "Bearer"
	if jkt != "" {
		tokenType = "DPoP"
	}
	answer := map[string]any{"access_token": at, "token_type": tokenType,
		"expires_in": int(s.cfg.TTL / time.Second), "scope": strings.Join(scope, " ")}
	if r.PostFormValue("grant_type") != grantJWTBearer && !s.cfg.NoRefresh { // an ID-JAG's token is got again, not refreshed
		rt := "rt-" + random()
		s.refresh[rt] = strings.Join(scope, " ")
		s.issuedBy[rt] = as
		s.Tokens = append(s.Tokens, rt)
		answer["refresh_token"] = rt
	}
	writeJSON(w, 200, answer)
}

// prmURL is where the 401 says the resource metadata is ("" when it does
// not say).
func (s *Server) prmURL() string {
	if u, ok := s.cfg.URLs["resource_metadata"]; ok {
		return u
	}
	if s.cfg.PRM == "" || s.cfg.PRM == PRMInHeader {
		return s.MCP.URL + "/custom/prm.json"
	}
	return ""
}

func (s *Server) mcpHandler() http.Handler {
	mcpSrv := server.NewMCPServer("oauthtest", "1.0.0")
	mcpSrv.AddTool(mcp.NewTool("whoami", mcp.WithDescription("says the call went through")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("authorized"), nil
		})
	h := server.NewStreamableHTTPServer(mcpSrv, server.WithStateLess(true))
	prm := func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		moved := s.movedTo
		s.mu.Unlock()
		as := s.asURL(moved)
		if u, ok := s.cfg.URLs["authorization_servers"]; ok {
			as = u
		}
		writeJSON(w, 200, map[string]any{"resource": s.URL(), "authorization_servers": []string{as},
			"scopes_supported": []string{"read"}})
	}
	mux := http.NewServeMux()
	switch s.cfg.PRM {
	case PRMPath:
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", prm)
	case PRMRoot:
		mux.HandleFunc("GET /.well-known/oauth-protected-resource", prm)
	default:
		mux.HandleFunc("GET /custom/prm.json", prm)
	}
	mux.Handle("/mcp", s.guard(h))
	return mux
}

// guard lets through requests with a valid token and the scopes they
// need: read for all, CallScope as well for tools/call.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		s.mu.Lock()
		t, ok := s.access[tok]
		ok = ok && t.as == s.movedTo // a token of the AS the resource left is refused
		s.mu.Unlock()
		md := ""
		if u := s.prmURL(); u != "" {
			md = `, resource_metadata="` + u + `"`
		}
		if !ok || time.Now().After(t.expires) || (t.jkt == "" && !strings.EqualFold(scheme, "Bearer")) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", scope="read"`+md)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if t.jkt != "" && !s.dpopAccess(w, r, scheme, tok, t, md) {
			return
		}
		if s.cfg.CallScope != "" && r.Method == http.MethodPost && isCall(r) && !slices.Contains(t.scope, s.cfg.CallScope) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="read `+s.cfg.CallScope+`"`+md)
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isCall reports whether r is a tools/call (its body read and restored).
func isCall(r *http.Request) bool {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return bytes.Contains(b, []byte(`"tools/call"`))
}

// Browse is a test's browser for a login: it opens the authorization URL,
// whose server approves at once, and follows the redirect to latch's
// loopback callback. It fits mcp.Options.OpenBrowser.
func Browse(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
