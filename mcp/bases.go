package mcp

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Bases are the folders a server may resolve a relative path against, as
// far as latch knows them. For a stdio server: the folder it runs in (Cwd,
// else latch's own), every argument (or value of a --flag=value) that
// names an existing folder (a leading "~" expanded with home, the
// server's own home; relative to the folder it runs in), and roots. For an in-process server: latch's own
// folder and roots. Nil for a remote server (http, sse), whose folders
// latch cannot know. A folder reached through a symbolic link is there by
// both names, as server-filesystem allows both. Each is absolute and
// cleaned, with '/' as separator; sorted, without repeats.
//
// More bases only make the gate stricter (a relative path is allowed only
// if every base puts it in an allowed folder, refused if any base puts it
// in a denied one), so a folder the server may not use after all (the
// working folder of a server that resolves against its arguments, an
// argument that is not a path) costs an allow at most, never a deny.
func (c ServerConfig) Bases(roots []string, home string) []string {
	switch c.Transport {
	case TransportStdio, "", TransportInProcess:
	default:
		return nil
	}
	wd := func() string {
		if d, err := os.Getwd(); err == nil {
			return d
		}
		return string(filepath.Separator)
	}
	var cwd string
	switch {
	case c.Transport == TransportInProcess || c.Cwd == "":
		cwd = wd()
	case filepath.IsAbs(c.Cwd):
		cwd = filepath.Clean(c.Cwd) // the config made it absolute
	default:
		cwd = absBase(c.Cwd, wd(), home)
	}
	out := withReal(nil, cwd)
	if c.Transport != TransportInProcess {
		for _, a := range c.Args {
			if strings.HasPrefix(a, "-") {
				_, a, _ = strings.Cut(a, "=") // --dir=/srv/x names a folder too
			}
			if a == "" {
				continue
			}
			p := absBase(a, cwd, home)
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				out = withReal(out, p)
			}
		}
	}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			r = absBase(r, wd(), home)
		}
		out = withReal(out, filepath.Clean(r))
	}
	for i := range out {
		out[i] = filepath.ToSlash(out[i])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// absBase is p as a server would read a folder argument: "~" and "~/…"
// expanded with home (when known), then made absolute against dir.
func absBase(p, dir, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`)) {
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// withReal appends dir and, when a symbolic link leads to it, its real
// path: a server that resolves links (server-filesystem does, for its
// folders and the client's roots) resolves relative paths against that.
func withReal(out []string, dir string) []string {
	out = append(out, dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		out = append(out, real)
	}
	return out
}

// serverHome is the home folder a stdio server expands "~" with: the one
// its env sets, else latch's own, which it inherits.
func serverHome(c ServerConfig, getenv func(string) string) string {
	name := "HOME"
	if runtime.GOOS == "windows" {
		name = "USERPROFILE"
	}
	for k, v := range c.Env {
		if k == name || (runtime.GOOS == "windows" && strings.EqualFold(k, name)) {
			return v
		}
	}
	return getenv(name)
}

// Bases are the folders the named server may resolve a relative path
// against (see ServerConfig.Bases), nil for an unknown or remote server.
// The roots among them are every root of this session, those /roots
// removed included: a server told of the removal asks for the new list
// when it likes, and one never offered roots gains only strictness.
//
// They are worked out once per connection and set of roots: a server
// reads its folders when it starts (server-filesystem resolves its
// folders and their links then) and the roots when told of a change, so
// a call need not look at the disk again (the stat of each argument and
// the link lookups cost more than deciding the call).
func (m *Manager) Bases(name string) []string {
	s, ok := m.servers[name]
	if !ok {
		return nil
	}
	m.rootsMu.Lock()
	roots := slices.Clone(m.rootsEver)
	m.rootsMu.Unlock()
	s.mu.Lock()
	gen, memo := s.gen, s.bases
	s.mu.Unlock()
	if memo.ok && memo.gen == gen && memo.roots == len(roots) {
		return slices.Clone(memo.list)
	}
	list := s.cfg.Bases(roots, serverHome(s.cfg, m.opts.Getenv))
	s.mu.Lock()
	if s.gen == gen {
		s.bases = basesMemo{ok: true, gen: gen, roots: len(roots), list: list}
	}
	s.mu.Unlock()
	return slices.Clone(list)
}

// basesMemo is a server's bases as worked out for one connection (gen)
// and the session's roots then (only ever added to, so their number
// tells a change).
type basesMemo struct {
	ok    bool
	gen   int
	roots int
	list  []string
}
