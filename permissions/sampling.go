package permissions

import (
	"slices"
	"strconv"
	"strings"
)

// A server's request for model time (sampling/createMessage) is decided as
// if it were a call of that server, under its own allow-list kind. Its
// entries are marked with '@', which neither a server name ([a-z0-9_-]) nor
// an MCP tool name ([A-Za-z0-9_.-]) holds, so an entry is either a tool or a
// request kind, never both:
//
//   - in a server's own `allow`: "@sampling";
//   - in `permissions.allow` and `--allow`: "SERVER@sampling".
//
// A tool whose name holds '@' anyway is never matched by an allow-list
// entry of the config or the flags (a session or saved grant still works).

// SamplingEntry is the entry of a server's own `allow` that lets its
// sampling requests through without asking.
const SamplingEntry = "@sampling"

// kindMark starts a request kind in an allow-list entry.
const kindMark = "@"

// SamplingName is the `permissions.allow` / `--allow` entry of server's
// sampling requests: SERVER@sampling.
func SamplingName(server string) string { return server + SamplingEntry }

// CheckKindEntry checks a `permissions.allow` or `--allow` entry that names
// a request kind (it holds '@'): it must be SERVER@sampling with a
// configured server. An entry without '@' is a tool's and passes.
func CheckKindEntry(entry string, servers []string) error {
	at := strings.Index(entry, kindMark)
	if at < 0 {
		return nil
	}
	server, kind := entry[:at], entry[at:]
	if kind != SamplingEntry {
		return &kindError{entry: entry, why: "the only request kind is @sampling (SERVER@sampling)"}
	}
	if server == "" {
		return &kindError{entry: entry, why: "name the server: SERVER@sampling (a server's own allow takes \"@sampling\")"}
	}
	if !slices.Contains(servers, server) {
		return &kindError{entry: entry, why: "no server " + strconv.Quote(server) + " is configured (servers: " + strings.Join(servers, ", ") + ")"}
	}
	return nil
}

// CheckServerKindEntry checks an entry of a server's own `allow` that names
// a request kind (it holds '@'): it must be exactly "@sampling".
func CheckServerKindEntry(entry string) error {
	if !strings.Contains(entry, kindMark) || entry == SamplingEntry {
		return nil
	}
	return &kindError{entry: entry, why: "a server's own allow takes the request kind \"@sampling\" (no server name, nothing else after '@')"}
}

type kindError struct{ entry, why string }

func (e *kindError) Error() string { return strconv.Quote(e.entry) + ": " + e.why }

// isKind reports whether a tool name holds the request-kind mark: such a
// name is never matched by the config's or the flags' allow-lists.
func isKind(name string) bool { return strings.Contains(name, kindMark) }

// DecideSampling returns the verdict on a sampling request of server:
//
//   - allow-listed (@sampling in its allow, SERVER@sampling in
//     permissions.allow or --allow): Allow, in every mode;
//   - with no one at the keyboard (-p): Deny, whatever the mode;
//   - auto: Allow; ask and approve: AskUser (a request cannot be parked
//     across a restart); read_only: Deny.
func (g *Gate) DecideSampling(server string) Verdict {
	g.mu.RLock()
	defer g.mu.RUnlock()
	mode, overridden := g.effectiveMode(server)
	name := SamplingName(server)
	if src, ok := g.samplingListed(server); ok {
		return Verdict{Decision: Allow, Reason: samplingAllowedBy(server, src), By: ByPolicy, Source: src, Mode: mode}
	}
	if server == "" {
		return Verdict{Decision: Deny, Reason: "a sampling request of no server", By: ByPolicy, Mode: mode}
	}
	notListed := name + " is not allow-listed and " + server + " is in " + mode.String() + " mode"
	if !g.interactive {
		return Verdict{Decision: Deny, By: ByPolicy, Mode: mode,
			Reason: "no one to ask in non-interactive mode (-p), and sampling needs an explicit allow there; " +
				name + " is not allow-listed; the user can allow it with --allow " + name}
	}
	switch mode {
	case Auto:
		return Verdict{Decision: Allow, Reason: "auto mode", By: ByPolicy, Mode: mode}
	case Ask, Approve:
		return Verdict{Decision: AskUser, Reason: notListed + "; asking the user", By: ByPolicy, Mode: mode}
	}
	modeCmd := "/mode ask"
	if overridden {
		modeCmd = "/mode " + server + " ask"
	}
	return Verdict{Decision: Deny, By: ByPolicy, Mode: ReadOnly,
		Reason: notListed + "; the user can allow it with " + modeCmd + ", or \"" + name + "\" in permissions.allow (or --allow)"}
}

// samplingListed reports whether server's sampling requests are
// allow-listed, and by which source. The caller holds g.mu.
func (g *Gate) samplingListed(server string) (Source, bool) {
	if server == "" {
		return "", false
	}
	if _, ok := g.serverAllow[server][SamplingEntry]; ok {
		return FromServer, true
	}
	name := SamplingName(server)
	if _, ok := g.allow[name]; ok {
		return FromConfig, true
	}
	if _, ok := g.flagAllow[name]; ok {
		return FromFlag, true
	}
	return "", false
}

// samplingAllowedBy names the entry that let server's request through.
func samplingAllowedBy(server string, src Source) string {
	switch src {
	case FromServer:
		return SamplingEntry + " is in the allow list of server " + server
	case FromFlag:
		return SamplingName(server) + " is allowed with --allow"
	}
	return SamplingName(server) + " is in permissions.allow"
}
