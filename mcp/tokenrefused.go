package mcp

import (
	"fmt"
	"strings"
)

// A server that answers 401 to a static credential (a token, token_env,
// token_file, token_command, an Authorization header, or one given with
// /token) refused that credential: nothing expired, and no browser login
// helps. What latch says names where the credential came from — the
// variable's name, the file's path, the config key — never its value, and
// without a chat (-p, latch serve) suggests no chat command.

// tokenSource says where the credential s connects with came from, in
// words: "$GITHUB_TOKEN (token_env)", never the credential.
func (s *server) tokenSource() string {
	s.mu.Lock()
	override := s.override != ""
	s.mu.Unlock()
	c := s.cfg
	switch {
	case override:
		return "given with /token"
	case c.Token != "":
		return "in its config (token)"
	case c.TokenEnv != "" && ValidEnvName(c.TokenEnv):
		return "from $" + c.TokenEnv + " (token_env)"
	case c.TokenEnv != "":
		return "in its config (token_env)" // not a variable's name: perhaps the token itself
	case c.TokenFile != "":
		return "from the file " + c.TokenFile + " (token_file)"
	case len(c.TokenCommand) > 0:
		return "printed by its token_command"
	case c.hasAuthHeader():
		return "in its config's Authorization header (headers)"
	}
	return ""
}

// hasAuthHeader reports whether the config sends an Authorization header
// of its own: a static credential, as a token is.
func (c ServerConfig) hasAuthHeader() bool {
	for k, v := range c.Headers {
		if strings.EqualFold(k, "Authorization") && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// authLost is what latch says after a server's name when it answered 401:
// for a static credential, that it was refused and where it came from;
// for an OAuth login, that it expired. Each says what to do: in the chat,
// its commands; without one (-p, latch serve), no command of the chat's.
func (m *Manager) authLost(s *server) string {
	return m.red.apply(m.authWords(s)) // names only; redacted all the same
}

// authWords is authLost before redaction.
func (m *Manager) authWords(s *server) string {
	name := s.cfg.Name
	if src := s.tokenSource(); src != "" && s.auth == nil {
		if m.opts.NoChat {
			return fmt.Sprintf("refused the token %s (401 Unauthorized): check that it is valid for this server, then run latch again", src)
		}
		return fmt.Sprintf("refused the token %s (401 Unauthorized): /token %s sets another for this session, "+
			"/connect %s reads the configured one again", src, name, name)
	}
	if m.opts.NoChat {
		return fmt.Sprintf("authorization expired (401): log in again in the chat (latch, then /login %s)", name)
	}
	return fmt.Sprintf("authorization expired (401): /token %s or /connect %s", name, name)
}
