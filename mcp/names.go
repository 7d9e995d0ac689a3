package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// maxNameLen is the longest tool name offered to the model. OpenAI-style
// function names are limited to 64 characters of [a-zA-Z0-9_-]; Ollama's
// templates pass names through to the model, so we keep to that set.
const maxNameLen = 64

// Separator joins a server name and a tool name: fs__read_text_file.
const Separator = "__"

// validNameChar reports whether c may appear in a model-facing tool name.
func validNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// cleanName replaces characters a model's tool call could not carry and
// shortens the name, keeping it readable and deterministic: a name that had
// to be changed gets a short hash of the original, so two different
// originals never clean to the same name.
func cleanName(server, tool string) string {
	full := server + Separator + tool
	var b strings.Builder
	changed := false
	for i := 0; i < len(full); i++ {
		if validNameChar(full[i]) {
			b.WriteByte(full[i])
		} else {
			b.WriteByte('_')
			changed = true
		}
	}
	name := b.String()
	if len(name) > maxNameLen {
		changed = true
		name = name[:maxNameLen-9]
	}
	if changed {
		sum := sha256.Sum256([]byte(full))
		name = strings.TrimRight(name, "_") + "_" + hex.EncodeToString(sum[:])[:8]
		if len(name) > maxNameLen {
			name = name[len(name)-maxNameLen:]
		}
	}
	return name
}

// assignNames gives each of a server's tools its model-facing name. taken
// holds the names other servers already use; a collision gets a numeric
// suffix, assigned in sorted order of the original names so the result does
// not depend on the order the server listed them.
func assignNames(server string, tools []string, taken map[string]bool) map[string]string {
	sorted := append([]string(nil), tools...)
	sort.Strings(sorted)
	out := make(map[string]string, len(tools))
	for _, t := range sorted {
		name := cleanName(server, t)
		for i := 2; taken[name]; i++ {
			suffix := fmt.Sprintf("_%d", i)
			base := cleanName(server, t)
			if len(base)+len(suffix) > maxNameLen {
				base = base[:maxNameLen-len(suffix)]
			}
			name = base + suffix
		}
		taken[name] = true
		out[t] = name
	}
	return out
}
