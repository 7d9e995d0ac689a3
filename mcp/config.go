package mcp

import (
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Transports a server can use.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // streamable HTTP
	TransportSSE   = "sse"  // legacy HTTP+SSE
	// TransportInProcess runs an mcp-go server in this process (built-in
	// tools, tests, benchmarks); set ServerConfig.InProcess.
	TransportInProcess = "inprocess"
)

// ServerConfig is what the manager needs to know of one server. It is built
// from the config file by package main; credentials are only named here and
// resolved each time the client is built.
type ServerConfig struct {
	Name      string
	Transport string // TransportStdio, TransportHTTP or TransportSSE

	Command string            // stdio
	Args    []string          // stdio
	Env     map[string]string // stdio: added to the environment (and wins)
	Cwd     string            // stdio

	// A stdio server inherits only a short allow-list of latch's
	// environment (see childEnv), plus the variables named in Inherit, or
	// every variable with InheritAll. Another server's TokenEnv variable is
	// passed on only when Inherit names it.
	InheritAll bool     // stdio: env_inherit true
	Inherit    []string // stdio: env_inherit as a list of names

	URL     string            // http, sse
	Headers map[string]string // http, sse: sent as given; a token's Authorization wins
	// Secrets are values the person typed for this server at start (VS
	// Code inputs) that its Env, Args or Headers hold: credentials,
	// redacted wherever they could show.
	Secrets []string

	Token        string   // a literal token
	TokenEnv     string   // a variable holding the token
	TokenFile    string   // a file holding the token
	TokenCommand []string // a command printing the token

	// OAuth (http, sse; see package oauth). Auth is AuthOAuth to log in with
	// OAuth whatever the server's first answer, AuthNone never to; left
	// empty, a server without a static credential that answers 401 with a
	// Bearer challenge is logged in to with OAuth.
	Auth                string
	ClientID            string   // a pre-registered client
	ClientSecret        string   // its secret: a literal,
	ClientSecretEnv     string   // a variable,
	ClientSecretFile    string   // a file,
	ClientSecretCommand []string // or a command printing it
	ClientKeyFile       string   // a PEM private key: private_key_jwt client authentication
	ClientMetadataURL   string   // a client ID metadata document's URL
	Scopes              []string // asked for, with what the server asks for
	Grant               string   // GrantAuthorizationCode (default), GrantClientCredentials, GrantEnterprise or GrantWorkload
	Store               string   // StoreFile (default) or StoreMemory
	// DPoP binds the tokens to a key of latch's (RFC 9449): each token
	// request and each request to the server carries a proof signed with
	// it, and the token is sent with the DPoP scheme; see oauth/dpop.go.
	DPoP bool

	// Enterprise-managed authorization (Grant GrantEnterprise; see
	// oauth/enterprise.go): the identity provider's token endpoint, latch's
	// client there, and the person's ID token from it.
	IDPTokenURL            string   // the identity provider's token endpoint
	IDPClientID            string   // latch's client at the identity provider
	IDPClientSecret        string   // its secret: a literal,
	IDPClientSecretEnv     string   // a variable,
	IDPClientSecretFile    string   // a file,
	IDPClientSecretCommand []string // or a command printing it
	IDToken                string   // the ID token: a literal,
	IDTokenEnv             string   // a variable,
	IDTokenFile            string   // a file,
	IDTokenCommand         []string // or a command printing it

	// Workload identity (Grant GrantWorkload; see oauth/workload.go): the
	// JWT the workload's platform issued it, read each time a token is
	// needed.
	WorkloadToken        string   // a literal,
	WorkloadTokenEnv     string   // a variable,
	WorkloadTokenFile    string   // a file,
	WorkloadTokenCommand []string // or a command printing it

	InProcess *mcpserver.MCPServer // inprocess

	// Protocol is the era to speak: ProtocolLegacy, ProtocolModern, or
	// ProtocolAuto ("" too), the newest the server speaks (era.go).
	Protocol string

	Timeout        time.Duration // per request (default 60 s), on every transport
	ConnectTimeout time.Duration // connect + handshake + first tool list (default 15 s)
	Disabled       bool          // not connected at start-up

	// secretVars are the TokenEnv names of every configured server; New
	// sets them, and a stdio server does not inherit them unless Inherit
	// names them.
	secretVars []string
	// held are latch's own credentials (Options.Held); New sets them, and
	// a stdio server never gets them.
	held Held
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 60 * time.Second
}

func (c ServerConfig) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return 15 * time.Second
}

func (c ServerConfig) hasCredential() bool {
	return c.Token != "" || c.TokenEnv != "" || c.TokenFile != "" || len(c.TokenCommand) > 0
}
