package permissions

import (
	"slices"
	"strconv"
	"strings"
)

// Source says where an allow-list entry came from.
type Source string

// The allow-list sources, in the order AllowList sorts them.
const (
	// FromServer is a server's `allow` in the config (original tool names).
	FromServer Source = "server allow"
	// FromConfig is the global `permissions.allow` (namespaced names).
	FromConfig Source = "permissions.allow"
	// FromFlag is the --allow flag (namespaced names).
	FromFlag Source = "--allow"
	// FromSaved is a saved grant (`A` in the modal, /allow NAME --always):
	// it lasts beyond the session, for the tool's definition it was made for.
	FromSaved Source = "saved grant"
	// FromSession is a grant made in this session: /allow NAME or `a` in the modal.
	FromSession Source = "session grant"
)

// rank orders the sources for AllowList and for the Source a Verdict reports
// when several match: the most durable first.
func (s Source) rank() int {
	switch s {
	case FromServer:
		return 0
	case FromConfig:
		return 1
	case FromFlag:
		return 2
	case FromSaved:
		return 3
	case FromSession:
		return 4
	}
	return 5
}

// Policy is what the config and the flags say. The gate copies it, so it never
// changes by itself; runtime changes go through the Gate's methods.
type Policy struct {
	// Mode is the global default mode (ReadOnly when zero).
	Mode Mode
	// ServerModes holds per-server overrides of Mode, by server config name.
	ServerModes map[string]Mode
	// ServerAllow maps a server's config name to its `allow`: the server's
	// ORIGINAL tool names, matched against Call.Tool for that server only.
	ServerAllow map[string][]string
	// Allow is `permissions.allow`: namespaced names (see Readings).
	Allow []string
	// FlagAllow is --allow: namespaced names (see Readings).
	FlagAllow []string
	// Servers are the names of every configured server. A namespaced entry
	// or grant is read against them, together with the servers named in
	// ServerModes and ServerAllow (see Readings): an entry that reads as
	// tools of two servers allows neither. Without them the gate knows only
	// the servers ServerModes and ServerAllow name.
	Servers []string
	// Rules are the argument rules (CompileRule): --allow and --deny in
	// their compact form, permissions.rules and the servers' rules. Of
	// the rules that match a call, deny wins over ask and ask over allow,
	// whatever their order; the order only says which of several rules of
	// the winning decision is named as the one that decided.
	Rules []Rule
	// ExactArgs are the servers with approve_args "exact": for their
	// tools `a` in the box approves the call's exact arguments for the
	// session, not the whole tool (Gate.GrantArgs).
	ExactArgs []string
	// Home expands a leading "~" in a call's string arguments, as rules
	// read them; "" leaves it as it is.
	Home string
	// PathCase is whether the rules compare paths case-folded; the zero
	// value folds on macOS and Windows, whose file systems do.
	PathCase PathCase
}

// Reading is one way to read a namespaced name: a tool of a server.
type Reading struct {
	Server string // the server's config name
	Tool   string // the rest of the name: the tool's original name, or a fixed-up one
}

// Readings returns every way name reads as <server>__<tool> with one of
// servers: each server s such that name begins with s + "__" and goes on,
// sorted by server. With servers x and x_, "x___foo" has two readings:
// tool "_foo" of x and tool "foo" of x_.
func Readings(name string, servers []string) []Reading {
	var out []Reading
	for _, s := range servers {
		if s != "" && len(name) > len(s)+len(NamespaceSep) && strings.HasPrefix(name, s+NamespaceSep) &&
			!slices.ContainsFunc(out, func(r Reading) bool { return r.Server == s }) {
			out = append(out, Reading{Server: s, Tool: name[len(s)+len(NamespaceSep):]})
		}
	}
	slices.SortFunc(out, func(a, b Reading) int { return strings.Compare(a.Server, b.Server) })
	return out
}

// AmbiguousEntryError is a namespaced allow-list entry that reads as tools
// of two or more servers: it allows none of them.
type AmbiguousEntryError struct {
	Entry    string
	Readings []Reading
}

func (e *AmbiguousEntryError) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Quote(e.Entry) + " is ambiguous: it reads as ")
	for i, r := range e.Readings {
		switch {
		case i == len(e.Readings)-1:
			b.WriteString(" and as ")
		case i > 0:
			b.WriteString(", as ")
		}
		b.WriteString("tool " + strconv.Quote(r.Tool) + " of server " + strconv.Quote(r.Server))
	}
	r := e.Readings[0]
	b.WriteString("; allow the tool in its server's \"allow\" instead (the server's own tool names, e.g. \"allow\": [" +
		strconv.Quote(r.Tool) + "] in server " + strconv.Quote(r.Server) + ")")
	return b.String()
}

// CheckEntry returns an *AmbiguousEntryError when the namespaced name reads
// as tools of two or more of servers, else nil. The config loader and the
// flags use it to refuse such entries; the gate never lets one match.
func CheckEntry(name string, servers []string) error {
	if rs := Readings(name, servers); len(rs) > 1 {
		return &AmbiguousEntryError{Entry: name, Readings: rs}
	}
	return nil
}

// Call is one tool call to decide on. The session fills it from its own tool
// table, not from what the model sent.
type Call struct {
	// Server is the config name of the server.
	Server string
	// Tool is the tool's original name on the server.
	Tool string
	// Name is the model-facing namespaced name, e.g. fs__read_text_file. It
	// begins with Server + "__".
	Name string
	// Digest is the digest of the tool's definition (schema and description),
	// "" if unknown. A session grant only covers the definition it was made for.
	Digest string
	// Args are the call's arguments, as the argument rules read them.
	Args map[string]any
	// Bases are the folders the server may resolve a relative path
	// against (its working folder, the folders in its arguments, the roots
	// latch sent it): absolute and cleaned, with '/' as separator. Nil when
	// latch knows none (a remote server): a relative path then never
	// matches an allow rule.
	Bases []string
	// Client is who made the call through latch serve, as rules with a
	// "client" read it (rules_client.go); zero for the model's calls.
	Client CallClient
}

// Entry is one allow-list entry and where it came from, as /allow lists it.
type Entry struct {
	// Name is the namespaced name; for a FromServer entry it is Server + "__" +
	// the original tool name, which may differ from the model-facing name when
	// the tool's name needed a fix-up.
	Name string
	// Source is where the entry came from.
	Source Source
	// Server is the server whose `allow` holds the entry (FromServer), or
	// the server a saved grant is for (FromSaved).
	Server string
	// Args are the exact arguments (CanonicalArgs) a session grant of one
	// call covers; "" for an entry of the whole tool.
	Args string
}

// NamespaceSep joins a server name and a tool name into a namespaced name.
const NamespaceSep = "__"
