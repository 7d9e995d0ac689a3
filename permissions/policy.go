package permissions

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
	case FromSession:
		return 3
	}
	return 4
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
	// Allow is `permissions.allow`: namespaced names, matched against Call.Name.
	Allow []string
	// FlagAllow is --allow: namespaced names, matched against Call.Name.
	FlagAllow []string
}

// Call is one tool call to decide on. The session fills it from its own tool
// table, not from what the model sent.
type Call struct {
	// Server is the config name of the server.
	Server string
	// Tool is the tool's original name on the server.
	Tool string
	// Name is the model-facing namespaced name, e.g. fs__read_text_file.
	Name string
	// Digest is the digest of the tool's definition (schema and description),
	// "" if unknown. A session grant only covers the definition it was made for.
	Digest string
}

// Entry is one allow-list entry and where it came from, as /allow lists it.
type Entry struct {
	// Name is the namespaced name; for a FromServer entry it is Server + "__" +
	// the original tool name, which may differ from the model-facing name when
	// the tool's name needed a fix-up.
	Name string
	// Source is where the entry came from.
	Source Source
	// Server is the server whose `allow` holds the entry (FromServer only).
	Server string
}

// NamespaceSep joins a server name and a tool name into a namespaced name.
const NamespaceSep = "__"
