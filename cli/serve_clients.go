package cli

import (
	"context"
	"errors"
	"io"

	"latch/config"
	"latch/gateway"
	"latch/session"
)

// serveClients are the bearer tokens of serve.clients for latch serve
// --listen and the chat's --serve: read from the config (and each token's
// variable, file or command) at the start, and again whenever the config
// or a token file changes, so that a client removed there is refused from
// its next request on. Why they could not be read again is said on log
// (nil: not said). Nil when the config names no client at the start.
func serveClients(s *settings, log io.Writer, asJSON bool) *gateway.ClientTokens {
	if len(s.cfg.Serve.Clients) == 0 {
		return nil
	}
	path := s.cfgPath
	return &gateway.ClientTokens{
		Load: func() (map[string]string, []string, error) {
			files := []string{path}
			cfg, err := config.Load(path, s.getenv)
			if err != nil {
				return nil, files, err
			}
			tokens := map[string]string{}
			var errs []error
			for _, c := range cfg.Serve.Clients {
				if c.TokenFile != "" {
					files = append(files, c.TokenFile)
				}
				t, err := c.Token(context.Background(), s.getenv)
				errs = append(errs, err)
				tokens[c.Name] = t
			}
			return tokens, files, errors.Join(errs...)
		},
		OnError: func(err error) {
			gateway.LogEvent(log, asJSON, "clients", "serve.clients not read again, so every named client is refused until it is fixed: "+err.Error(),
				map[string]any{"error": err.Error()})
		},
	}
}

// clientsHeld adds the named clients' tokens that a variable or a file
// holds to h (see heldCredentials); a token_command is not run for it.
func clientsHeld(s *settings, h session.Held) session.Held {
	for _, c := range s.cfg.Serve.Clients {
		if c.TokenEnv != "" {
			h.Vars = append(h.Vars, c.TokenEnv)
		}
		if c.TokenEnv != "" || c.TokenFile != "" {
			if t, err := c.Token(context.Background(), s.getenv); err == nil && t != "" {
				h.Values = append(h.Values, t)
			}
		}
	}
	return h
}
