package permissions

import (
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Gate decides tool calls. It holds a copy of the Policy plus what the person
// at the keyboard changed during the session: modes, session grants, recorded
// decisions and whether anyone is there to ask. It is safe for concurrent use.
//
// The zero Gate is usable and fails closed: read_only, nothing allowed, and
// non-interactive. NewGate starts interactive.
type Gate struct {
	mu sync.RWMutex // guards every field below; Decide only reads

	mode        Mode                           // global mode (policy, then /mode)
	serverModes map[string]Mode                // per-server overrides (policy, then /mode SERVER)
	serverAllow map[string]map[string]struct{} // server → its original tool names
	allow       map[string]struct{}            // permissions.allow
	flagAllow   map[string]struct{}            // --allow
	servers     []string                       // the servers namespaced names are read against
	grants      map[string]grant               // session grants, by model-facing name
	argGrants   map[argsGrant]struct{}         // session grants of exact arguments (exactargs.go)
	exactArgs   map[string]struct{}            // servers whose `a` grants exact arguments only
	saved       map[savedKey]string            // saved grants: server and tool → definition digest
	decisions   map[string]bool                // call id → the user's decision
	interactive bool                           // someone can answer an AskUser
	rules       ruleSet                        // the argument rules (rules_set.go)
}

// NewGate returns an interactive gate for p. It copies p, so later changes to
// p's maps and slices do not reach the gate. An unknown mode in p counts as
// read_only; empty names in the allow-lists are ignored.
func NewGate(p Policy) *Gate {
	g := &Gate{
		mode:        p.Mode.orReadOnly(),
		serverModes: make(map[string]Mode, len(p.ServerModes)),
		serverAllow: make(map[string]map[string]struct{}, len(p.ServerAllow)),
		allow:       nameSet(p.Allow),
		flagAllow:   nameSet(p.FlagAllow),
		servers:     knownServers(p),
		interactive: true,
		rules:       newRuleSet(p.Rules, p.Home, p.PathCase.folds(runtime.GOOS)),
		exactArgs:   nameSet(p.ExactArgs),
	}
	for server, m := range p.ServerModes {
		g.serverModes[server] = m.orReadOnly()
	}
	for server, tools := range p.ServerAllow {
		if set := nameSet(tools); len(set) > 0 {
			g.serverAllow[server] = set
		}
	}
	return g
}

// knownServers are the servers a policy names: Servers, and those with a
// mode or an allow of their own; sorted, without "" and duplicates.
func knownServers(p Policy) []string {
	var out []string
	out = append(out, p.Servers...)
	out = slices.AppendSeq(out, maps.Keys(p.ServerModes))
	out = slices.AppendSeq(out, maps.Keys(p.ServerAllow))
	out = slices.DeleteFunc(out, func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}

// nameSet returns the non-empty names of list as a set.
func nameSet(list []string) map[string]struct{} {
	set := make(map[string]struct{}, len(list))
	for _, name := range list {
		if name != "" {
			set[name] = struct{}{}
		}
	}
	return set
}

// Decide returns the verdict for c. It never changes the gate, and it never
// allows a call that is neither allow-listed nor in an auto-mode server.
//
// The argument rules are matched outside the gate's lock (matchRules), so
// that a call whose values take long to match never holds back a
// decision recorded, a grant made or another call decided meanwhile.
func (g *Gate) Decide(c Call) Verdict {
	m := g.matchRules(c)
	defer g.mu.RUnlock()
	v := g.decide(c, m)
	// The one non-interactive policy: with no one to ask, ask means deny.
	if v.Decision == AskUser && !g.interactive {
		return Verdict{Decision: Deny, Reason: noOneToAsk(c, v), By: ByPolicy, Mode: v.Mode, Rule: v.Rule, NoOneToAsk: true}
	}
	return v
}

// decide applies the gate's table (docs/ARCHITECTURE.md): a deny or ask
// rule first, then the allow-list, then an allow rule where the mode lets
// a rule allow, then the mode. The caller holds g.mu.
//
// m is what the argument rules say of c (matchRules).
func (g *Gate) decide(c Call, m ruleMatch) Verdict {
	mode, overridden := g.effectiveMode(c.Server)
	r, ruled := m.rule, m.ok
	if ruled {
		if v, ok := ruleVerdict(c, r, mode); ok {
			return v
		}
	}
	if src, ok := g.listed(c); ok {
		by := ByPolicy
		if src == FromSession || src == FromSaved {
			by = ByUser
		}
		return Verdict{Decision: Allow, Reason: allowedBy(c, src), By: by, Source: src, Mode: mode}
	}
	if ruled && r.Decision == Allow && (mode == ReadOnly || mode == Ask) {
		return Verdict{Decision: Allow, Reason: ruleSays(c, r), By: ByPolicy, Mode: mode, Rule: r.Origin}
	}
	stale := ""
	if g.savedStale(c) {
		stale = "; " + savedChanged(c)
	}
	switch mode {
	case Auto:
		return Verdict{Decision: Allow, Reason: "auto mode", By: ByPolicy, Mode: mode}
	case Ask:
		return Verdict{Decision: AskUser, Reason: notListed(c, mode) + stale + "; asking the user", By: ByPolicy, Mode: mode}
	case Approve:
		return Verdict{Decision: Park, Reason: notListed(c, mode) + stale + "; waiting for approval", By: ByPolicy, Mode: mode}
	default: // ReadOnly; effectiveMode never returns an unknown mode
		return Verdict{Decision: Deny, Reason: readOnlyDenial(c, overridden, g.interactive) + stale, By: ByPolicy, Mode: ReadOnly}
	}
}

// ruleVerdict is the verdict of a deny or ask rule, which no allow-list
// entry, grant or mode lifts: deny denies; ask asks the person, or, in
// approve mode, parks the call for them. An allow rule gives no verdict
// here (ok false): it allows only what neither the allow-list nor the
// mode already decides.
func ruleVerdict(c Call, r *Rule, mode Mode) (Verdict, bool) {
	switch r.Decision {
	case Deny:
		return Verdict{Decision: Deny, Reason: ruleSays(c, r), By: ByPolicy, Mode: mode, Rule: r.Origin}, true
	case AskUser:
		d, then := AskUser, "; asking the user"
		if mode == Approve {
			d, then = Park, "; waiting for approval"
		}
		return Verdict{Decision: d, Reason: ruleSays(c, r) + then, By: ByPolicy, Mode: mode, Rule: r.Origin}, true
	}
	return Verdict{}, false
}

// listed reports whether c is allow-listed and by which source, trying the
// most durable source first. Matching is exact; an empty name never matches.
// The caller holds g.mu.
//
// Every entry is matched on c's server and tool, never on the model-facing
// string alone: a namespaced entry must read as a tool of c.Server (see
// names), a session grant must have been made for c's server, and a saved
// grant for c's server, tool and definition digest.
func (g *Gate) listed(c Call) (Source, bool) {
	if !isKind(c.Tool) && !isKind(c.Name) {
		if src, ok := g.configListed(c); ok {
			return src, true
		}
	}
	if c.Server == "" {
		return "", false
	}
	if g.savedCovers(c) {
		return FromSaved, true
	}
	if gr, ok := g.grants[c.Name]; ok && c.Name != "" && gr.covers(c, g.servers) {
		return FromSession, true
	}
	if g.argsGranted(c) {
		return FromSession, true
	}
	return "", false
}

// configListed reports whether the config or the flags allow-list c: its
// server's own allow, permissions.allow or --allow. The caller holds g.mu.
func (g *Gate) configListed(c Call) (Source, bool) {
	if c.Tool != "" {
		if _, ok := g.serverAllow[c.Server][c.Tool]; ok {
			return FromServer, true
		}
	}
	if c.Server == "" {
		return "", false
	}
	if g.names(g.allow, c) {
		return FromConfig, true
	}
	if g.names(g.flagAllow, c) {
		return FromFlag, true
	}
	return "", false
}

// names reports whether set holds a namespaced entry naming c's tool: its
// original name, c.Server + "__" + c.Tool, or, for a tool whose name had to
// be fixed up, its model-facing name c.Name. The entry must name c's server
// and no other the gate knows: one that reads as tools of two servers
// (x___foo, with servers x and x_) allows neither. The caller holds g.mu.
func (g *Gate) names(set map[string]struct{}, c Call) bool {
	if len(set) == 0 {
		return false
	}
	prefix := c.Server + NamespaceSep
	for _, entry := range [2]string{prefix + c.Tool, c.Name} {
		if len(entry) <= len(prefix) || !strings.HasPrefix(entry, prefix) {
			continue // no tool, or not c's server: c.Name of another server
		}
		if _, ok := set[entry]; ok && onlyReading(entry, c.Server, g.servers) {
			return true
		}
	}
	return false
}

// onlyReading reports whether name, which reads as a tool of server, reads
// as a tool of no other of servers.
func onlyReading(name, server string, servers []string) bool {
	for _, s := range servers {
		if s != server && len(name) > len(s)+len(NamespaceSep) && strings.HasPrefix(name, s+NamespaceSep) {
			return false
		}
	}
	return true
}

// effectiveMode returns the mode for server (its override, else the global
// mode) and whether it was overridden. The caller holds g.mu.
func (g *Gate) effectiveMode(server string) (Mode, bool) {
	if m, ok := g.serverModes[server]; ok {
		return m.orReadOnly(), true
	}
	return g.mode.orReadOnly(), false
}

// SetInteractive says whether someone can answer a y/n modal. With false (the
// non-interactive -p mode) a call that would be asked is denied instead.
func (g *Gate) SetInteractive(interactive bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.interactive = interactive
}

// Interactive reports whether the gate may answer AskUser.
func (g *Gate) Interactive() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.interactive
}

// SetMode sets the global mode (/mode MODE). An unknown mode sets read_only.
// Per-server overrides still win over it.
func (g *Gate) SetMode(m Mode) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mode = m.orReadOnly()
}

// SetServerMode overrides the mode of one server (/mode SERVER MODE). An
// unknown mode sets read_only.
func (g *Gate) SetServerMode(server string, m Mode) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.serverModes == nil {
		g.serverModes = make(map[string]Mode)
	}
	g.serverModes[server] = m.orReadOnly()
}

// ClearServerMode removes the override of one server, config or runtime, so
// the server follows the global mode again. It reports whether there was one.
func (g *Gate) ClearServerMode(server string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.serverModes[server]
	delete(g.serverModes, server)
	return ok
}

// Mode returns the global mode.
func (g *Gate) Mode() Mode {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.mode.orReadOnly()
}

// ServerMode returns the effective mode of server and whether it comes from
// an override of that server (false: it is the global mode).
func (g *Gate) ServerMode(server string) (Mode, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.effectiveMode(server)
}

// ServerModes returns a copy of every per-server override.
func (g *Gate) ServerModes() map[string]Mode {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return maps.Clone(g.serverModes)
}

// EffectiveMode returns the mode that decides calls to server's tools: its
// override, else the global mode.
func (g *Gate) EffectiveMode(server string) Mode {
	m, _ := g.ServerMode(server)
	return m
}
