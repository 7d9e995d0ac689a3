package cli

import (
	"os"
	"strings"

	"latch/session"
)

// serveTokenVar is the variable latch serve reads its bearer token from
// when the config names neither serve.token_env nor serve.token_file.
const serveTokenVar = "LATCH_SERVE_TOKEN"

// heldCredentials are latch's own credentials: the gateway's bearer token,
// wherever latch serve (or the chat's --serve) would read it —
// $LATCH_SERVE_TOKEN, serve.token_env's variable, serve.token_file's
// content. They are held in every mode, the chat and -p too: the
// variables and any variable holding the token are given to no server,
// and the token is redacted wherever a server's text could show it. A
// token file that cannot be read adds nothing here; latch serve says why
// when it needs it.
func heldCredentials(s *settings) session.Held {
	h := session.Held{Vars: []string{serveTokenVar}}
	if v := s.cfg.Serve.TokenEnv; v != "" && v != serveTokenVar {
		h.Vars = append(h.Vars, v)
	}
	for _, v := range h.Vars {
		if t := strings.TrimSpace(s.getenv(v)); t != "" {
			h.Values = append(h.Values, t)
		}
	}
	if f := s.cfg.Serve.TokenFile; f != "" {
		if b, err := os.ReadFile(f); err == nil {
			if t := strings.TrimSpace(string(b)); t != "" {
				h.Values = append(h.Values, t)
			}
		}
	}
	return clientsHeld(s, h)
}
