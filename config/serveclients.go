package config

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"

	"latch/mcp"
	"latch/permissions"
)

// ServeClient is an entry of serve.clients: an MCP client latch serve
// knows by its own bearer token, which names it to the gate (a rule's
// "client"), the log and the approval screens.
type ServeClient struct {
	Name         string   // its key: letters, digits, '.', '_', '-'
	TokenEnv     string   // "token_env": the variable holding its token
	TokenFile    string   // "token_file": a file holding it (0600); ~ expanded, relative to the config file's folder
	TokenCommand []string // "token_command": a command printing it
}

var serveClientKeys = []string{"token_env", "token_file", "token_command"}

// serveClients reads serve.clients, sorted by name. Each client has one
// token source; the tokens themselves are read when latch serve starts
// and whenever the files change (ServeClient.Token), not here.
func (l *loader) serveClients(raw json.RawMessage) []ServeClient {
	obj, ok := l.object("", "serve.clients", raw)
	if !ok {
		return nil
	}
	var out []ServeClient
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if err := permissions.ValidClientName(name); err != nil {
			l.errorf("", "serve.clients", "a key (not repeated: it may be a token put there by mistake): %v", err)
			continue
		}
		at := "serve.clients." + name
		entry, ok := l.object("", at, obj[name])
		if !ok {
			continue
		}
		l.unknownKeys("", at, entry, serveClientKeys)
		c := ServeClient{Name: name}
		if raw, set := entry["token_env"]; set {
			c.TokenEnv = strings.TrimSpace(l.nonEmpty("", at+".token_env", raw))
			if c.TokenEnv != "" && !mcp.ValidEnvName(c.TokenEnv) {
				l.errorf("", at+".token_env", "not a variable name (letters, digits and _); the token itself belongs in a variable, a file or a command")
			}
		}
		if raw, set := entry["token_file"]; set {
			c.TokenFile = l.checkPath("", at+".token_file", l.nonEmpty("", at+".token_file", raw), false, false)
		}
		if raw, set := entry["token_command"]; set {
			c.TokenCommand, _ = l.strList("", at+".token_command", raw)
			l.tokenCommand(at, c.TokenCommand, false)
		}
		if n := countSet(c.TokenEnv != "", c.TokenFile != "", len(c.TokenCommand) > 0); n != 1 {
			l.errorf("", at, "give one of token_env, token_file or token_command (the client's own bearer token)")
		}
		out = append(out, c)
	}
	return out
}

// countSet counts the true ones.
func countSet(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Token reads the client's bearer token now. A token file must be a
// regular file, the owner's alone (0600; any group or other permission
// bit refuses it, except on Windows). Errors name the source, never the token.
func (c ServeClient) Token(ctx context.Context, getenv func(string) string) (string, error) {
	field := "serve.clients." + c.Name + ".token"
	if c.TokenFile != "" {
		fi, err := os.Stat(c.TokenFile)
		switch {
		case err != nil: // said by the read below
		case !fi.Mode().IsRegular():
			// A FIFO would hold latch serve's every request.
			return "", fmt.Errorf("%s_file: %s is not a regular file", field, c.TokenFile)
		case runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0:
			return "", fmt.Errorf("%s_file: %s may be read by others (mode %v): run chmod 600 on it", field, c.TokenFile, fi.Mode().Perm())
		}
	}
	return mcp.ReadSecret(ctx, field, c.TokenEnv, c.TokenFile, c.TokenCommand, getenv)
}

// checkRuleClients warns of each rule whose "client" matches no key of
// serve.clients (a name mistyped, or a client not added yet): only
// latch serve --stdio --as could name a client it is about.
func (l *loader) checkRuleClients(cfg *Config) {
	rules := slices.Clone(cfg.Permissions.Rules)
	for _, s := range cfg.Servers {
		rules = append(rules, s.Rules...)
	}
	for _, r := range rules {
		glob := r.Spec.Client
		if glob == "" || slices.ContainsFunc(cfg.Serve.Clients, func(c ServeClient) bool {
			ok, err := path.Match(glob, c.Name)
			return ok && err == nil
		}) {
			continue
		}
		l.warns = append(l.warns, fmt.Sprintf("%s.client: %q matches no client of serve.clients, "+
			"so only latch serve --stdio --as could name a client this rule is about", r.Origin, glob))
	}
}
