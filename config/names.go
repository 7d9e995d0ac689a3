package config

import (
	"fmt"
	"strings"
)

// latch's server names prefix tool names (NAME__tool) and so keep to
// [a-z0-9_-]{1,32}. Cline's marketplace names a server by its
// repository's address ("github.com/upstash/context7-mcp"). In another
// app's file such a name (one with a "/") is mapped to one latch can use: the last segment of the address (or
// the whole name), lower case, every run of other characters a "-", cut
// to 32; a name taken already gets "-2", "-3"… A notice says which name
// stands for which, and the server keeps the file's name (ServerConfig.FileName)
// for display.

// safeNames maps each of keys (sorted) to the name latch uses for it:
// a safe name (above) for an address (a name with a "/"), else itself
// (a name latch refuses stays an error: "My Server" is a typo to fix,
// not an address to shorten).
func safeNames(keys []string) map[string]string {
	out := make(map[string]string, len(keys))
	taken := map[string]bool{}
	for _, k := range keys {
		if !strings.Contains(k, "/") {
			out[k], taken[k] = k, true
		}
	}
	for _, k := range keys {
		if !strings.Contains(k, "/") {
			continue
		}
		base := safeName(k)
		name := base
		for n := 2; taken[name]; n++ {
			suffix := fmt.Sprintf("-%d", n)
			name = base[:min(len(base), 32-len(suffix))] + suffix
		}
		out[k], taken[name] = name, true
	}
	return out
}

// safeName is the name latch uses for a server the file names key.
func safeName(key string) string {
	last := strings.Trim(key, "/ ")
	if i := strings.LastIndexByte(last, '/'); i >= 0 {
		last = last[i+1:]
	}
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(last) {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		switch {
		case ok:
			b.WriteRune(c)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 32 {
		s = strings.TrimRight(s[:32], "-")
	}
	if s == "" {
		s = "server"
	}
	return s
}

// shortKey is a file's key for a message: quoted by the caller (%q, so
// no control character reaches a screen), cut at 80 characters.
func shortKey(key string) string {
	if r := []rune(key); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return key
}
