package oauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// Values of Config.Auth and Grant.
const (
	AuthOAuth = "oauth" // log in with OAuth (MCP authorization)
	AuthNone  = "none"  // never log in: a 401 is only reported

	GrantAuthorizationCode = "authorization_code" // a person logs in in a browser
	GrantClientCredentials = "client_credentials" // the client's own credentials, no browser
	// GrantEnterprise is enterprise-managed authorization: the person's ID
	// token from the enterprise identity provider is exchanged there for
	// an identity assertion (ID-JAG), which the client trades for a token
	// at the server's authorization server; no browser.
	GrantEnterprise = "enterprise"
	// GrantWorkload is workload identity federation: a JWT the workload's
	// platform issued it is traded for the token (JWT bearer grant); no
	// browser.
	GrantWorkload = "workload"
)

// oauthHTTPTimeout bounds each request to an authorization server.
var oauthHTTPTimeout = 30 * time.Second

// loginTimeout bounds how long a login waits for the browser's callback.
var loginTimeout = 5 * time.Minute

// refreshMargin is how long before its expiry a token is refreshed.
var refreshMargin = 60 * time.Second

// maxStepUps is how many times one request may ask for more scopes.
const maxStepUps = 1

// ErrNoLogin says a server needs a login that cannot happen here: no
// browser can be opened (latch -p), or the login is not asked for.
var ErrNoLogin = errors.New("not logged in")

// Config is what a login needs to know of its server: the OAuth fields
// of mcp's ServerConfig, secrets named by their source and read (with
// Options.Resolve) only when they are needed.
type Config struct {
	Name, URL              string
	Auth                   string   // AuthOAuth: the config asks for OAuth
	Grant                  string   // GrantAuthorizationCode ("" too), GrantClientCredentials, GrantEnterprise or GrantWorkload
	ClientID               string   // a pre-registered client
	ClientSecret           string   // its secret: a literal,
	ClientSecretEnv        string   // a variable,
	ClientSecretFile       string   // a file,
	ClientSecretCommand    []string // or a command printing it
	ClientKeyFile          string   // a PEM private key: private_key_jwt client authentication
	ClientMetadataURL      string   // a client ID metadata document's URL
	Scopes                 []string // asked for, with what the server asks for
	DPoP                   bool     // tokens bound to a key of latch's (RFC 9449; dpop.go)
	IDPTokenURL            string   // enterprise.go: the identity provider's token endpoint
	IDPClientID            string   // latch's client there
	IDPClientSecret        string   // its secret: a literal,
	IDPClientSecretEnv     string   // a variable,
	IDPClientSecretFile    string   // a file,
	IDPClientSecretCommand []string // or a command printing it
	IDToken                string   // the person's ID token: a literal,
	IDTokenEnv             string   // a variable,
	IDTokenFile            string   // a file,
	IDTokenCommand         []string // or a command printing it
	WorkloadToken          string   // workload.go: the workload's JWT: a literal,
	WorkloadTokenEnv       string   // a variable,
	WorkloadTokenFile      string   // a file,
	WorkloadTokenCommand   []string // or a command printing it
}

// Source is where a secret lives: a literal, a variable, a file or a
// command (the first one set wins).
type Source struct {
	Literal, Env, File string
	Command            []string
}

// Redactor hides credentials in text. Every secret a login learns is
// added to it the moment it is known; errors pass through Apply.
type Redactor interface {
	Add(secrets ...string)
	Apply(s string) string
}

// Options are what a login gets from its manager.
type Options struct {
	// Dir is where the login is kept (<Dir>/<server>.json); "" keeps it
	// in memory only.
	Dir string
	// HTTP is the client for the authorization servers (nil: one with a
	// 30 s timeout); it is used behind a guard that sends nothing in clear.
	HTTP *http.Client
	// Redactor learns every secret (nil: nothing is redacted).
	Redactor Redactor
	// Resolve reads a secret from its source now; field names the config
	// fields in errors ("client_secret" for client_secret_env…). Nil
	// reads literals only.
	Resolve func(ctx context.Context, field string, src Source) (string, error)
	// Browser opens a login URL; nil when no one can (latch -p).
	Browser func(ctx context.Context, url string) error
	// OnURL is told every login URL, to show it (nil: no one).
	OnURL func(url string)
}

// State is a server's OAuth session: what discovery found, who the
// client is, and the tokens. It outlives connections (a reconnect keeps
// the login) and is safe for concurrent use. Every secret it learns goes
// to red the moment it is known.
type State struct {
	cfg     Config
	red     Redactor
	http    *http.Client // for the authorization server: no credentials of the MCP server
	store   *tokenFile   // nil: memory only
	resolve func(ctx context.Context, field string, src Source) (string, error)
	dpop    *dpopKey // nil unless cfg.DPoP
	// browser opens a login URL; nil when no one can (latch -p).
	browser func(ctx context.Context, url string) error
	onURL   func(url string) // told every login URL, to show it

	mu        sync.Mutex
	rec       authRecord // client, endpoints and tokens
	challenge challenge  // the server's last Bearer challenge
	disc      *discovery // nil until discovered
	expired   string     // why the login no longer works ("" when it does)
	asked     bool       // the server asked for a login (401, or 403 for scopes)
	loginMu   sync.Mutex // one interactive login at a time
	refreshMu sync.Mutex // one refresh at a time
}

// authRecord is what a login leaves: kept in memory and, unless the
// server's store is memory, on disk (0600) for the next start.
type authRecord struct {
	URL          string    `json:"url"` // the server's URL: a record for another URL is ignored
	ClientID     string    `json:"client_id,omitempty"`
	ClientSecret string    `json:"client_secret,omitempty"` // from dynamic registration only
	AuthMethod   string    `json:"token_endpoint_auth_method,omitempty"`
	Issuer       string    `json:"issuer,omitempty"`
	TokenURL     string    `json:"token_endpoint,omitempty"`
	RevokeURL    string    `json:"revocation_endpoint,omitempty"`
	Resource     string    `json:"resource,omitempty"`
	AccessToken  string    `json:"access_token,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	Scope        string    `json:"scope,omitempty"`
	TokenType    string    `json:"token_type,omitempty"` // "DPoP" for a DPoP-bound token, else Bearer
	DPoPKey      string    `json:"dpop_key,omitempty"`   // PEM: the key the tokens are bound to
}

// heldFor is the record as far as it belongs to the authorization server
// issuer: a client registered and tokens issued by another issuer are not
// held for this one, so they are never presented to it (SEP-2352: a
// resource may move to another authorization server). Every request to an
// authorization server takes its client and refresh token from here.
func (r authRecord) heldFor(issuer string) authRecord {
	if r.Issuer == issuer {
		return r
	}
	return authRecord{URL: r.URL}
}

// secrets are the record's credentials, for the redactor.
func (r authRecord) secrets() []string {
	return []string{r.AccessToken, r.RefreshToken, r.ClientSecret, r.DPoPKey}
}

// grant is the configured grant, authorization_code by default.
func (c Config) grant() string {
	if c.Grant == "" {
		return GrantAuthorizationCode
	}
	return c.Grant
}

// headless reports whether the grant gets tokens without a person (no
// browser): client_credentials, enterprise and workload, done again on
// expiry.
func (c Config) headless() bool {
	g := c.grant()
	return g == GrantClientCredentials || g == GrantEnterprise || g == GrantWorkload
}

// New makes the OAuth session of cfg and loads what an earlier login
// stored in opts.Dir.
func New(cfg Config, opts Options) *State {
	o := &State{cfg: cfg, red: opts.Redactor, resolve: opts.Resolve, onURL: opts.OnURL,
		http: &http.Client{Timeout: oauthHTTPTimeout}, browser: opts.Browser}
	if o.red == nil {
		o.red = noRedaction{}
	}
	if o.resolve == nil {
		o.resolve = literalOnly
	}
	if o.onURL == nil {
		o.onURL = func(string) {}
	}
	if opts.HTTP != nil {
		o.http = opts.HTTP
	}
	o.http = guarded(o.http, cfg.Name)
	if opts.Dir != "" {
		o.store = &tokenFile{dir: opts.Dir, server: cfg.Name}
		if rec, err := o.store.load(); err == nil && rec.URL == cfg.URL {
			o.red.Add(rec.secrets()...)
			o.rec = rec
		}
	}
	if cfg.DPoP {
		// A key that cannot be made leaves dpop nil: the token requests then
		// carry no proof, and a server that wants one refuses them, saying so.
		if o.dpop, _ = newDPoPKey(o.rec.DPoPKey); o.dpop != nil {
			o.red.Add(o.dpop.pem)
		}
	}
	return o
}

// noRedaction is the Redactor of a State given none: it hides nothing.
type noRedaction struct{}

func (noRedaction) Add(...string)         {}
func (noRedaction) Apply(s string) string { return s }

// literalOnly is the Resolve of a State given none: a literal, trimmed.
func literalOnly(_ context.Context, _ string, src Source) (string, error) {
	return strings.TrimSpace(src.Literal), nil
}

// token is the access token to send now ("" without one), refreshed first
// when it is about to expire and can be.
func (o *State) token(ctx context.Context) string {
	o.mu.Lock()
	rec := o.rec
	o.mu.Unlock()
	if rec.AccessToken != "" && (rec.ExpiresAt.IsZero() || time.Until(rec.ExpiresAt) > refreshMargin) {
		return rec.AccessToken
	}
	if rec.RefreshToken != "" || (o.cfg.headless() && rec.AccessToken != "") {
		if t, err := o.renew(ctx, rec.AccessToken); err == nil {
			return t
		}
	}
	return rec.AccessToken
}

// setRecord keeps rec (its secrets already redacted) and stores it.
func (o *State) setRecord(rec authRecord) error {
	rec.URL = o.cfg.URL
	o.red.Add(rec.secrets()...)
	o.mu.Lock()
	o.rec = rec
	o.expired = ""
	o.mu.Unlock()
	if o.store != nil {
		return o.store.save(rec)
	}
	return nil
}

// record is a copy of the current record.
func (o *State) record() authRecord {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.rec
}

// setExpired says the login no longer works, and why.
func (o *State) setExpired(why string) {
	o.mu.Lock()
	o.expired = why
	o.mu.Unlock()
}

// LoginInfo is what /servers says of a server's OAuth login.
type LoginInfo struct {
	OAuth    bool      // the server logs in with OAuth
	LoggedIn bool      // an access or refresh token is held
	Until    time.Time // the access token's expiry (zero: unknown)
	Refresh  bool      // it refreshes itself (a refresh token is held)
	Scope    string    // the scopes granted
	Client   string    // the client ID used
	Problem  string    // why the login no longer works, if it does not
	// Browser says a login opens a browser here; without one (latch -p)
	// a server that needs a browser login says what to run instead.
	Browser bool
	IDP     string // the enterprise identity provider's host (grant enterprise)
	// Needed says the server has a login to speak of: it asked for one,
	// one was made, or the config says auth "oauth". An HTTP server
	// without a credential may log in, but most never ask.
	Needed bool
}

// Info describes the login.
func (o *State) Info() LoginInfo {
	o.mu.Lock()
	defer o.mu.Unlock()
	return LoginInfo{OAuth: true, LoggedIn: o.rec.AccessToken != "" || o.rec.RefreshToken != "",
		Until: o.rec.ExpiresAt, Refresh: o.rec.RefreshToken != "", Scope: o.rec.Scope,
		Client: o.rec.ClientID, Problem: o.expired,
		Browser: o.browser != nil || o.cfg.headless(), IDP: o.idpHost(),
		Needed: o.asked || o.cfg.Auth == AuthOAuth || o.rec.ClientID != "" || o.expired != ""}
}

// grantedScopes are the scopes of the current token, as a list.
func (o *State) grantedScopes() []string {
	return strings.Fields(o.record().Scope)
}

// tokenOf converts mcp-go's token to the record's fields.
func (r *authRecord) setToken(t *transport.Token, requested string) {
	r.AccessToken = t.AccessToken
	if t.RefreshToken != "" {
		r.RefreshToken = t.RefreshToken
	}
	r.ExpiresAt = time.Time{}
	if t.ExpiresIn > 0 {
		r.ExpiresAt = time.Now().Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	r.Scope = t.Scope
	if r.Scope == "" {
		r.Scope = requested
	}
}
