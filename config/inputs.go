package config

import (
	"fmt"
	"slices"
	"strings"
)

// A VS Code mcp.json may hold ${input:ID} in a server's strings: a value
// (an API key, most often) that VS Code asks the person for. latch asks
// for it once, at start, before the screen comes up: masked, kept in
// memory only, and redacted like a token wherever it could show. Where
// there is no one to ask (-p, no terminal), the server is left out with a
// line saying how to give latch the value instead.

// LeaveOutInputs takes the servers that still need an ${input:…} value out
// of cfg, each with a notice saying why and what to do instead. It
// returns what it left out, by server: what each needed (a gateway's
// instructions name them).
func (cfg *Config) LeaveOutInputs(why string) map[string]string {
	var kept []ServerConfig
	var out map[string]string
	for _, s := range cfg.Servers {
		if len(s.Inputs) == 0 {
			kept = append(kept, s)
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[s.Name] = "needs " + inputRefs(s.Inputs) + ", a value VS Code asks for; " + why
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("config %s: server %q: needs %s, a value VS Code asks for; %s, so this server is not loaded. "+
			"Give it to latch in latch's own config: env with the value for a stdio server, token_env naming a variable for an http server's token",
			cfg.Path, s.Name, inputRefs(s.Inputs), why))
	}
	cfg.Servers = kept
	return out
}

// inputRefs writes ids as ${input:ID}, ${input:ID2}.
func inputRefs(ids []string) string {
	refs := make([]string, len(ids))
	for i, id := range ids {
		refs[i] = "${input:" + id + "}"
	}
	return strings.Join(refs, ", ")
}

// FillInputs puts the values given into the servers that need them; a
// server whose value was not given is left out (see LeaveOutInputs), and
// returned.
func (cfg *Config) FillInputs(values map[string]string) map[string]string {
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if len(s.Inputs) == 0 || slices.ContainsFunc(s.Inputs, func(id string) bool { return values[id] == "" }) {
			continue
		}
		fill := func(v string) string {
			for _, id := range s.Inputs {
				v = strings.ReplaceAll(v, markedInput(id, cfg.inputMark), values[id])
			}
			return v
		}
		s.Command, s.URL, s.Cwd = fill(s.Command), fill(s.URL), fill(s.Cwd)
		for j := range s.Args {
			s.Args[j] = fill(s.Args[j])
		}
		for _, m := range []map[string]string{s.Env, s.Headers} {
			for k := range m {
				m[k] = fill(m[k])
			}
		}
		for _, id := range s.Inputs {
			s.Secrets = append(s.Secrets, values[id])
		}
		s.Inputs = nil
	}
	return cfg.LeaveOutInputs("none was given")
}
