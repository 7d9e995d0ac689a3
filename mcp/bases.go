package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bases are the folders a server may resolve a relative path against, as
// far as latch knows them: for a stdio server, the folder it runs in (Cwd,
// else latch's own), every argument that names an existing folder, and
// the roots latch offers; nil for a remote server, whose folders latch
// cannot know. Each is absolute and cleaned, with '/' as separator;
// home expands a leading "~".
func (c ServerConfig) Bases(roots []string, home string) []string {
	if c.Transport != TransportStdio && c.Transport != "" {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "/"
	}
	abs := func(p string) string {
		if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
			p = home + p[1:]
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		return filepath.ToSlash(filepath.Clean(p))
	}
	cwd := wd
	if c.Cwd != "" {
		cwd = abs(c.Cwd)
	}
	out := []string{filepath.ToSlash(filepath.Clean(cwd))}
	for _, a := range c.Args {
		if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		p := a
		if !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
			p = filepath.Join(cwd, p)
		}
		p = abs(p)
		if fi, err := os.Stat(filepath.FromSlash(p)); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	for _, r := range roots {
		out = append(out, abs(r))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
