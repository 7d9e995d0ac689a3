package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"latch/words"
)

// A file of another app's shape is one with none of latch's own top-level
// keys: a Claude Desktop or Cursor file, a VS Code mcp.json, a Cline or
// Roo settings file. Its servers load; the keys those apps define that
// latch has no use for are ignored with one notice naming them, and the
// ones latch understands are read as latch's (alwaysAllow, autoApprove,
// a timeout in seconds, transportType). A key no app defines is still an
// error with a "did you mean", as in latch's own format: a typo is a typo
// whoever wrote the file.

// latchTopKeys are the top-level keys only latch's own format has.
var latchTopKeys = []string{"model", "ollama", "permissions", "theme", "mouse", "roots", "serve", "import"}

// foreignTopKeys are other apps' top-level keys latch has no use for
// (Claude Desktop: globalShortcut, preferences). VS Code's inputs is read
// (see serverInputs).
var foreignTopKeys = []string{"globalShortcut", "preferences"}

// foreignServerKeys are other apps' server keys latch has no use for:
// VS Code's dev, gallery and version; Roo's watchPaths and disabledTools.
// (VS Code's envFile is read: envfile.go.)
var foreignServerKeys = []string{"dev", "gallery", "version", "watchPaths", "disabledTools"}

// foreignAllowKeys are the Cline and Roo keys that list a server's tools
// run without asking: they become the server's allow.
var foreignAllowKeys = []string{"alwaysAllow", "autoApprove"}

// foreignHint is latch's key for another app's key of the same meaning,
// when valid has it: the "did you mean" in latch's own format.
func foreignHint(k string, valid []string) string {
	hint := map[string]string{"alwaysAllow": "allow", "autoApprove": "allow", "transportType": "transport"}[k]
	if slices.Contains(valid, hint) {
		return hint
	}
	return ""
}

// vscodeSettings returns the "mcp" section of a VS Code settings.json
// (its "servers" and "inputs"), read as a VS Code mcp.json; the editor's
// own settings beside it are none of latch's business and are passed
// over without a word. Any other file is returned as it is.
func (l *loader) vscodeSettings(top map[string]json.RawMessage) map[string]json.RawMessage {
	if top["mcp"] == nil || !isForeign(top) || top["servers"] != nil || top["mcpServers"] != nil {
		return top
	}
	section, ok := l.object("", "mcp", top["mcp"])
	if !ok {
		return top
	}
	if top["latch"] != nil { // latch's settings beside the editor's (import.go)
		section["latch"] = top["latch"]
	}
	return section
}

// isForeign reports whether a config file is of another app's shape.
func isForeign(top map[string]json.RawMessage) bool {
	for _, k := range latchTopKeys {
		if top[k] != nil {
			return false
		}
	}
	return true
}

// ignoreForeign takes the keys of obj that another app defines and latch
// has no use for out of obj, noting them (as where.key) for the notice.
func (l *loader) ignoreForeign(where string, obj map[string]json.RawMessage, keys []string) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if slices.Contains(keys, k) {
			l.ignored = append(l.ignored, where+k)
			delete(obj, k)
		}
	}
}

// ignoredNotice is the one notice naming every ignored key.
func (l *loader) ignoredNotice() {
	if len(l.ignored) > 0 {
		l.warnf("", "", "keys of another app's config that latch has no use for are ignored: %s",
			strings.Join(l.ignored, ", "))
	}
}

// foreignServer rewrites a server entry of another app's shape into
// latch's keys, in place: alwaysAllow and autoApprove join allow (only
// exact tool names: anything else is dropped, so nothing is allowed that
// the file did not name), transportType is transport, a timeout in
// seconds is a duration; the other keys of those apps latch does not use
// are taken out and noted. A server the file disables is loaded disabled
// (not connected at start), with a notice saying so.
func (l *loader) foreignServer(name, srv string, obj map[string]json.RawMessage) {
	l.ignoreForeign(fmt.Sprintf("server %q: ", name), obj, foreignServerKeys)
	l.envFile(srv, obj)
	var allowed, from []string
	for _, key := range foreignAllowKeys {
		if raw, ok := obj[key]; ok {
			delete(obj, key)
			if got := l.foreignAllow(srv, key, raw); len(got) > 0 {
				from = append(from, key)
				allowed = append(allowed, got...)
			}
		}
	}
	// An empty list (Cline and Roo write "alwaysAllow": [] by default)
	// allows nothing and adds no allow key: no key the file lacks is
	// written here, so no error can name one.
	if len(allowed) > 0 {
		own, _ := l.strList(srv, "allow", obj["allow"])
		merged := slices.Compact(slices.Sorted(slices.Values(append(own, allowed...))))
		b, _ := json.Marshal(merged)
		obj["allow"] = b
		l.warnf(srv, strings.Join(from, ", "), "these tools run without asking (the server's allow): %s",
			strings.Join(slices.Compact(slices.Sorted(slices.Values(allowed))), ", "))
	}
	if strings.TrimSpace(string(obj["disabled"])) == "true" {
		l.warnf(srv, "disabled", "disabled in the file: loaded but not connected at start (/connect starts it)")
	}
	if raw, ok := obj["transportType"]; ok {
		delete(obj, "transportType")
		if obj["transport"] == nil {
			obj["transport"] = raw
		}
	}
	if raw := obj["timeout"]; words.JSONKind(raw) == "number" {
		s := strings.TrimSpace(string(raw))
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || n <= 0 {
			l.errorf(srv, "timeout", "expected seconds greater than 0 or a duration like \"60s\", got %s", s)
			delete(obj, "timeout")
			return
		}
		b, _ := json.Marshal(time.Duration(n * float64(time.Second)).String())
		obj["timeout"] = b
	}
}

// foreignAllow reads a Cline or Roo list of tools run without asking. It
// fails closed: an entry that is not a plain tool name (not a string,
// empty, a pattern, or one of latch's "@" kinds) allows nothing, and is
// named in a notice.
func (l *loader) foreignAllow(srv, key string, raw json.RawMessage) []string {
	if !l.want(srv, key, raw, "array", "an array of tool names") {
		return nil
	}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items)
	var out []string
	for i, it := range items {
		field := fmt.Sprintf("%s[%d]", key, i)
		var s string
		switch {
		case words.JSONKind(it) != "string":
			l.warnf(srv, field, "not a tool name (%s); it allows nothing", words.JSONKind(it))
			continue
		case json.Unmarshal(it, &s) != nil || strings.TrimSpace(s) == "":
			l.warnf(srv, field, "empty; it allows nothing")
		case strings.ContainsAny(s, "*?["):
			l.warnf(srv, field, "%q: latch matches tool names exactly; it allows nothing (list each tool)", s)
		case strings.HasPrefix(s, "@"):
			l.warnf(srv, field, "%q is not a tool name; it allows nothing", s)
		default:
			out = append(out, s)
		}
	}
	return out
}

// vscodeVar is a VS Code variable: ${input:ID}, ${env:NAME},
// ${workspaceFolder} and the like.
var vscodeVar = regexp.MustCompile(`\$\{([A-Za-z]+)(?::([^}]*))?\}`)

// Input is one of VS Code's "inputs": a value VS Code asks the person for.
type Input struct {
	ID          string
	Description string
	Password    bool
}

// serverInputs reads VS Code's top-level "inputs", by id.
func (l *loader) serverInputs(raw json.RawMessage) map[string]Input {
	if raw == nil {
		return nil
	}
	if !l.want("", "inputs", raw, "array", "an array") {
		return nil
	}
	var items []struct {
		ID          string `json:"id"`
		Description string `json:"description"`
		Password    bool   `json:"password"`
	}
	_ = json.Unmarshal(raw, &items)
	out := map[string]Input{}
	for _, it := range items {
		out[it.ID] = Input{ID: it.ID, Description: it.Description, Password: it.Password}
	}
	return out
}

// workspace is what ${workspaceFolder} means for this file: the folder
// that holds .vscode when the file is in one, else the file's folder.
func (l *loader) workspace() string {
	if filepath.Base(l.dir) == ".vscode" {
		return filepath.Dir(l.dir)
	}
	return l.dir
}
