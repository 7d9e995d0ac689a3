package mcp

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// envPolicy is how a platform names the variables a stdio server inherits
// from latch's environment by default (what the official MCP SDKs pass on).
type envPolicy struct {
	names    []string // inherited when set
	prefixes []string // every variable starting with one of these is inherited
	fold     bool     // names are case-insensitive (Windows)
}

var (
	unixEnv = envPolicy{
		names:    []string{"HOME", "LANG", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "USER"},
		prefixes: []string{"LC_"},
	}
	windowsEnv = envPolicy{
		names: []string{"APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
			"PROCESSOR_ARCHITECTURE", "PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP",
			"USERNAME", "USERPROFILE"},
		fold: true,
	}
)

// childEnv is the environment of the stdio server cfg, given latch's own
// (environ, as os.Environ) and the variables that hold other servers'
// credentials (secretVars, their token_env names): the platform's short
// allow-list, the names in cfg.Inherit (or everything, with
// cfg.InheritAll), then cfg.Env, which wins. A variable in secretVars is
// passed on only when cfg.Inherit names it (or cfg.Env sets it).
func childEnv(environ []string, cfg ServerConfig, secretVars []string) []string {
	return hostEnv.childEnv(environ, cfg, secretVars)
}

func (p envPolicy) childEnv(environ []string, cfg ServerConfig, secretVars []string) []string {
	key := func(name string) string {
		if p.fold {
			return strings.ToUpper(name)
		}
		return name
	}
	set := func(names []string) map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[key(n)] = true
		}
		return m
	}
	allowed, listed, secret, own := set(p.names), set(cfg.Inherit), set(secretVars), set(slices.Collect(maps.Keys(cfg.Env)))

	out := make([]string, 0, len(p.names)+len(cfg.Inherit)+len(cfg.Env))
	for _, kv := range environ {
		k := key(envName(kv))
		switch {
		case k == "" || own[k]:
			continue // cfg.Env sets it below
		case listed[k]:
		case secret[k]:
			continue
		case cfg.InheritAll, allowed[k], p.prefixed(k):
		default:
			continue
		}
		out = append(out, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		out = append(out, k+"="+cfg.Env[k])
	}
	return out
}

func (p envPolicy) prefixed(k string) bool {
	for _, pre := range p.prefixes {
		if strings.HasPrefix(k, pre) {
			return true
		}
	}
	return false
}

// envName is the name of a "NAME=value" entry. On Windows a name may start
// with "=" (the per-drive "=C:" variables), so the search starts after it.
func envName(kv string) string {
	if kv == "" {
		return ""
	}
	if i := strings.IndexByte(kv[1:], '='); i >= 0 {
		return kv[:i+1]
	}
	return kv
}

// secretEnvNames lists the token_env variables of every server: no stdio
// server gets them unless its env_inherit names them.
func secretEnvNames(cfgs []ServerConfig) []string {
	var out []string
	for _, c := range cfgs {
		if c.TokenEnv != "" && !slices.Contains(out, c.TokenEnv) {
			out = append(out, c.TokenEnv)
		}
	}
	return out
}

// ValidEnvName reports whether k is a portable variable name,
// [A-Za-z_][A-Za-z0-9_]*.
func ValidEnvName(k string) bool {
	for i, c := range k {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return k != ""
}

// PlainEnvName reports whether a token_env name may be repeated in a
// message: a conventional variable name, upper-case letters, digits and
// '_', at most 64 characters. Anything else (a GitHub token such as
// ghp_… is a valid name too) may be the token itself, pasted into the
// wrong field, and is never echoed.
func PlainEnvName(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, c := range k {
		if c != '_' && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// tokenEnvUnset is the error for a token_env variable that is not set.
func tokenEnvUnset(k string) error {
	if PlainEnvName(k) {
		return fmt.Errorf("token_env: variable %s is not set", k)
	}
	return errors.New("token_env: the variable it names is not set (the name is not repeated: it may be the token itself)")
}
