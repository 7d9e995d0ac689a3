package session

import (
	"context"

	"latch/mcp"
)

// TypeLoginURL is the event of an MCP server's OAuth login page.
const TypeLoginURL = "login_url"

// LoginURLEvent says a login to an MCP server is waiting in the browser:
// the page opened (or to be opened by hand, from a remote terminal). The
// URL carries no token, code or verifier.
type LoginURLEvent struct {
	Header
	Server string `json:"server"`
	URL    string `json:"url"`
}

// LoginInfo is what /servers says of a server's OAuth login (see
// mcp.LoginInfo).
type LoginInfo = mcp.LoginInfo

// loginURL publishes a login page's URL.
func (s *Session) loginURL(e mcp.LoginURL) {
	s.publish(&LoginURLEvent{Header: s.header(TypeLoginURL), Server: e.Server, URL: e.URL})
}

// Login logs in to an OAuth MCP server (in the browser, or with its
// client credentials) and connects it. It blocks until the server is
// connected, the login failed, or ctx ends (Esc).
func (s *Session) Login(ctx context.Context, name string) error {
	if s.servers == nil {
		return errNoServers
	}
	return s.servers.Login(ctx, name)
}

// Logout forgets an OAuth MCP server's login: revoked where the server
// supports it, deleted from memory and disk; the server is closed.
func (s *Session) Logout(ctx context.Context, name string) error {
	if s.servers == nil {
		return errNoServers
	}
	return s.servers.Logout(ctx, name)
}
