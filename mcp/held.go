package mcp

import "strings"

// Held are credentials latch holds for itself, not for any server: the
// bearer token of latch serve (and of the chat's --serve), which lets a
// client call the gated tools. No upstream server needs it, so none is
// given it, and none can show it to anyone:
//
//   - a variable in Vars never reaches a stdio server's environment,
//     whatever env_inherit says (true, or a list naming it);
//   - nor does any variable, inherited or set by the server's env, whose
//     value is one of Values (or holds one, for values of
//     heldSubstringLen bytes or more);
//   - every value is redacted wherever a server's text could show, as
//     every server's credential is.
type Held struct {
	Vars   []string // variables holding a held credential
	Values []string // the credentials, as sent (trimmed)
}

// heldSubstringLen is the shortest held value looked for inside a
// variable's value; a shorter one drops only a variable equal to it (a
// short test token would otherwise drop PATH).
const heldSubstringLen = 8

// withoutHeld returns env (NAME=value entries) without the variables h
// holds back. fold compares names case-insensitively (Windows).
func (h Held) withoutHeld(env []string, fold bool) []string {
	if len(h.Vars) == 0 && len(h.Values) == 0 {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		if !h.holds(kv, fold) {
			out = append(out, kv)
		}
	}
	return out
}

// holds reports whether the entry kv is a held variable or carries a held
// value.
func (h Held) holds(kv string, fold bool) bool {
	name := envName(kv)
	for _, v := range h.Vars {
		if name == v || fold && strings.EqualFold(name, v) {
			return true
		}
	}
	value := strings.TrimSpace(strings.TrimPrefix(kv[len(name):], "="))
	for _, v := range h.Values {
		v = trimToken(v)
		switch {
		case v == "":
		case value == v, len(v) >= heldSubstringLen && strings.Contains(value, v):
			return true
		}
	}
	return false
}
