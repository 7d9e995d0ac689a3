package permissions

import (
	"cmp"
	"slices"
)

// Grant allows the namespaced tool name for the rest of the session (/allow
// NAME, or `a` in the modal). The grant covers the tool's definition with the
// given digest only; with digest "" it covers any definition until
// ToolChanged is called for the tool. Granting again replaces the digest. An
// empty name is ignored.
func (g *Gate) Grant(name, digest string) {
	if name == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.grants == nil {
		g.grants = make(map[string]string)
	}
	g.grants[name] = digest
}

// Revoke removes the session grant for name and reports whether there was
// one. Entries from the config or the flags cannot be revoked.
func (g *Gate) Revoke(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.grants[name]
	delete(g.grants, name)
	return ok
}

// ToolChanged is called when a tool's definition digest changes; it drops every
// session grant for that tool made under another digest and returns the names
// dropped (so the user can be told). A grant made with digest "" is dropped
// too: no one knows which definition it was made for.
func (g *Gate) ToolChanged(name, digest string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	old, ok := g.grants[name]
	if !ok || old == digest {
		return nil
	}
	delete(g.grants, name)
	return []string{name}
}

// AllowList returns every allow-list entry with where it came from, sorted by
// name, then source (server, config, flag, session), then server. A server's
// entries are shown as namespaced names, server__tool.
func (g *Gate) AllowList() []Entry {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var list []Entry
	for server, tools := range g.serverAllow {
		for tool := range tools {
			list = append(list, Entry{Name: server + NamespaceSep + tool, Source: FromServer, Server: server})
		}
	}
	for name := range g.allow {
		list = append(list, Entry{Name: name, Source: FromConfig})
	}
	for name := range g.flagAllow {
		list = append(list, Entry{Name: name, Source: FromFlag})
	}
	for name := range g.grants {
		list = append(list, Entry{Name: name, Source: FromSession})
	}
	slices.SortFunc(list, func(a, b Entry) int {
		return cmp.Or(
			cmp.Compare(a.Name, b.Name),
			cmp.Compare(a.Source.rank(), b.Source.rank()),
			cmp.Compare(a.Server, b.Server),
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
