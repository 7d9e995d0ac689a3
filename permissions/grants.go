package permissions

import (
	"cmp"
	"slices"
	"strings"
)

// grant is one session grant.
type grant struct {
	digest string
	// server and tool, when known (GrantCall), are what the grant is for;
	// without them (Grant) the model-facing name's server is the one it
	// belongs to (see covers).
	server, tool string
}

// covers reports whether the grant, made under c.Name, covers c.
func (gr grant) covers(c Call, servers []string) bool {
	if gr.digest != "" && gr.digest != c.Digest {
		return false
	}
	if gr.server != "" {
		return gr.server == c.Server && gr.tool == c.Tool
	}
	// A model-facing name belongs to the longest server whose name and
	// "__" begin it (x___foo is x_'s, not x's): latch names tools so.
	if !strings.HasPrefix(c.Name, c.Server+NamespaceSep) {
		return false
	}
	for _, s := range servers {
		if len(s) > len(c.Server) && strings.HasPrefix(c.Name, s+NamespaceSep) {
			return false
		}
	}
	return true
}

// Grant allows the tool with the model-facing name for the rest of the
// session (/allow NAME, or `a` in the modal). The grant covers the tool's
// definition with the given digest only; with digest "" it covers any
// definition until ToolChanged is called for the tool. Granting again
// replaces the grant. An empty name is ignored.
//
// It covers a call of that name to the server the name belongs to (the
// longest known server whose name and "__" begin it, as latch names tools).
// GrantCall ties a grant to the call's server and tool themselves.
func (g *Gate) Grant(name, digest string) {
	g.grant(name, grant{digest: digest})
}

// GrantCall is Grant for the tool of c: c.Name with c.Digest, covering
// calls to c.Server's tool c.Tool under that name only.
func (g *Gate) GrantCall(c Call) {
	if c.Server == "" || c.Tool == "" {
		g.grant(c.Name, grant{digest: c.Digest})
		return
	}
	g.grant(c.Name, grant{digest: c.Digest, server: c.Server, tool: c.Tool})
}

func (g *Gate) grant(name string, gr grant) {
	if name == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.grants == nil {
		g.grants = make(map[string]grant)
	}
	g.grants[name] = gr
}

// Revoke removes the session grants for name, the whole tool's and those
// of exact arguments, and reports whether there was one. Entries from the
// config or the flags cannot be revoked.
func (g *Gate) Revoke(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.grants[name]
	delete(g.grants, name)
	args := g.dropArgGrants(name, func(argsGrant) bool { return true })
	return ok || args
}

// ToolChanged is called when a tool's definition digest changes; it drops every
// session grant for that tool made under another digest and returns the names
// dropped (so the user can be told). A grant made with digest "" is dropped
// too: no one knows which definition it was made for.
func (g *Gate) ToolChanged(name, digest string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	args := g.dropArgGrants(name, func(k argsGrant) bool { return k.digest != digest })
	old, ok := g.grants[name]
	if ok && old.digest != digest {
		delete(g.grants, name)
		return []string{name}
	}
	if args {
		return []string{name}
	}
	return nil
}

// AllowList returns every allow-list entry with where it came from, sorted by
// name, then source (server, config, flag, saved, session), then server. A
// server's entries and saved grants are shown as namespaced names,
// server__tool.
func (g *Gate) AllowList() []Entry {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var list []Entry
	for server, tools := range g.serverAllow {
		for tool := range tools {
			name := server + NamespaceSep + tool
			if tool == SamplingEntry {
				name = SamplingName(server)
			}
			list = append(list, Entry{Name: name, Source: FromServer, Server: server})
		}
	}
	for name := range g.allow {
		list = append(list, Entry{Name: name, Source: FromConfig})
	}
	for name := range g.flagAllow {
		list = append(list, Entry{Name: name, Source: FromFlag})
	}
	for k := range g.saved {
		list = append(list, Entry{Name: k.server + NamespaceSep + k.tool, Source: FromSaved, Server: k.server})
	}
	for name := range g.grants {
		list = append(list, Entry{Name: name, Source: FromSession})
	}
	for k := range g.argGrants {
		list = append(list, Entry{Name: k.name, Source: FromSession, Server: k.server, Args: k.args})
	}
	slices.SortFunc(list, func(a, b Entry) int {
		return cmp.Or(
			cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Source.rank(), b.Source.rank()),
			cmp.Compare(a.Server, b.Server),
			cmp.Compare(a.Args, b.Args),
		)
	})
	return list
}

// RecordDecision records the user's decision on an asked or parked call, so
// the session can later prove that a person decided. The first decision for a
// call id stands: a later one is ignored, so a decision applies exactly once.
// An empty call id is ignored.
func (g *Gate) RecordDecision(callID string, allow bool) {
	if callID == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, done := g.decisions[callID]; done {
		return
	}
	if g.decisions == nil {
		g.decisions = make(map[string]bool)
	}
	g.decisions[callID] = allow
}

// UserDecided returns the user's recorded decision for a call id; ok is false
// if no one decided on it.
func (g *Gate) UserDecided(callID string) (allow bool, ok bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	allow, ok = g.decisions[callID]
	return allow, ok
}
