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

// ownerOf returns the server a model-facing name belongs to: of the
// servers whose name followed by Separator begins it, the longest; "" if
// none does. "x___foo" belongs to x_ (tool "foo") when both x and x_ are
// configured, never to x.
func ownerOf(name string, servers []string) string {
	owner := ""
	for _, s := range servers {
		if len(s) > len(owner) && strings.HasPrefix(name, s+Separator) {
			owner = s
		}
	}
	return owner
}

// belongsTo reports whether name belongs to server (see ownerOf), whether
// or not servers lists it.
func belongsTo(name, server string, servers []string) bool {
	if !strings.HasPrefix(name, server+Separator) {
		return false
	}
	o := ownerOf(name, servers)
	return len(o) <= len(server)
}

// fixupMark starts the tool part of a name that had to be moved out of a
// longer server's names: server names are lower case, so none continues
// with it.
const fixupMark = "X"

// toolName gives a server's tool its model-facing name. It depends only on
// the server, the tool and the configured servers (not on which of them
// are connected), and it always belongs to the server (ownerOf): so two
// servers never share a name, and a name never moves from one server's
// tool to another's. Usually it is cleanName's; when that would belong to
// a longer server (x + "_foo" and x_ + "foo" both clean to x___foo, which
// is x_'s), the tool part is marked and hashed: x__X_foo_1a2b3c4d.
func toolName(server, tool string, servers []string) string {
	name := cleanName(server, tool)
	if belongsTo(name, server, servers) || !strings.HasPrefix(name, server+Separator) {
		// (A server name a model could not carry is not the config's:
		// cleanName's is the best there is.)
		return name
	}
	sum := sha256.Sum256([]byte(server + Separator + tool))
	hash := hex.EncodeToString(sum[:])[:8]
	part := strings.TrimLeft(cleanName(server, tool)[len(server)+len(Separator):], "_")
	for mark := fixupMark; len(mark) <= maxNameLen; mark += fixupMark {
		name = server + Separator + mark + part
		if len(name) > maxNameLen-len(hash)-1 {
			name = name[:maxNameLen-len(hash)-1]
		}
		name = strings.TrimRight(name, "_") + "_" + hash
		if belongsTo(name, server, servers) {
			break
		}
	}
	return name
}

// assignNames gives each of a server's tools its model-facing name (see
// toolName). taken holds the names given so far, this server's and other
// servers'; two tools whose names still collide (a hash collision, a
// server listing a name twice) get a numeric suffix, assigned in sorted
// order of the original names so the result does not depend on the order
// the server listed them. Names of different servers never collide when
// the server names are lower case, as the config requires; for others the
// suffix keeps the names unique.
func assignNames(server string, tools []string, taken map[string]bool, servers []string) map[string]string {
	sorted := append([]string(nil), tools...)
	sort.Strings(sorted)
	out := make(map[string]string, len(tools))
	for _, t := range sorted {
		if _, done := out[t]; done {
			continue // listed twice: one tool
		}
		base := toolName(server, t, servers)
		name := base
		owned := belongsTo(base, server, servers)
		for i := 2; taken[name] || owned && !belongsTo(name, server, servers); i++ {
			suffix := fmt.Sprintf("_%d", i)
			b := base
			if len(b)+len(suffix) > maxNameLen {
				b = b[:maxNameLen-len(suffix)]
			}
			name = b + suffix
		}
		taken[name] = true
		out[t] = name
	}
	return out
}
