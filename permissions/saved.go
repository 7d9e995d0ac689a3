package permissions

import (
	"cmp"
	"slices"
)

// SavedGrant is a grant the person at the keyboard saved to last beyond the
// session (`A` in the modal, /allow NAME --always). It covers one tool of
// one server, as that tool was defined when it was saved: a call whose
// tool's definition digest differs is not covered.
type SavedGrant struct {
	Server string // the server's config name
	Tool   string // the tool's original name on the server
	Digest string // the digest of the tool's definition when it was saved
}

// Valid reports whether the grant names a server, a tool and a digest: one
// without any of them covers nothing.
func (sg SavedGrant) Valid() bool { return sg.Server != "" && sg.Tool != "" && sg.Digest != "" }

// savedKey is what a saved grant is for: one tool of one server.
type savedKey struct{ server, tool string }

// SetSaved replaces the saved grants the gate applies with list (those
// without a server, a tool or a digest are ignored). A later entry for the
// same server and tool wins.
func (g *Gate) SetSaved(list []SavedGrant) {
	saved := make(map[savedKey]string, len(list))
	for _, sg := range list {
		if sg.Valid() {
			saved[savedKey{sg.Server, sg.Tool}] = sg.Digest
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.saved = saved
}

// AddSaved applies one saved grant, replacing any for the same server and
// tool. It reports false, and changes nothing, when sg lacks a server, a
// tool or a digest.
func (g *Gate) AddSaved(sg SavedGrant) bool {
	if !sg.Valid() {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.saved == nil {
		g.saved = make(map[savedKey]string)
	}
	g.saved[savedKey{sg.Server, sg.Tool}] = sg.Digest
	return true
}

// RemoveSaved stops applying the saved grant for server's tool and reports
// whether there was one.
func (g *Gate) RemoveSaved(server, tool string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.saved[savedKey{server, tool}]
	delete(g.saved, savedKey{server, tool})
	return ok
}

// Saved returns the saved grants the gate applies, sorted by server and tool.
func (g *Gate) Saved() []SavedGrant {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]SavedGrant, 0, len(g.saved))
	for k, d := range g.saved {
		out = append(out, SavedGrant{Server: k.server, Tool: k.tool, Digest: d})
	}
	sortSaved(out)
	return out
}

// SavedStale reports whether a saved grant exists for c's server and tool
// but for another definition than c.Digest: the tool changed since it was
// allowed always, and the grant does not cover it.
func (g *Gate) SavedStale(c Call) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.savedStale(c)
}

// savedStale is SavedStale; the caller holds g.mu.
func (g *Gate) savedStale(c Call) bool {
	d, ok := g.saved[savedKey{c.Server, c.Tool}]
	return ok && d != c.Digest
}

// savedCovers reports whether a saved grant covers c: same server, same
// original tool name, same definition digest. A call without a digest is
// never covered. The caller holds g.mu.
func (g *Gate) savedCovers(c Call) bool {
	if c.Server == "" || c.Tool == "" || c.Digest == "" {
		return false
	}
	d, ok := g.saved[savedKey{c.Server, c.Tool}]
	return ok && d == c.Digest
}

func sortSaved(list []SavedGrant) {
	slices.SortFunc(list, func(a, b SavedGrant) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Tool, b.Tool))
	})
}
