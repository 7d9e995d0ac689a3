package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// baseTree is a temp home with proj/ (a folder), notes.txt (a file) and
// link (a symbolic link to proj), all by their real paths.
func baseTree(t *testing.T) (home, proj, link string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, link = filepath.Join(home, "proj"), filepath.Join(home, "link")
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(proj, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	return home, proj, link
}

// TestServerConfigBases: the folders a server may resolve a relative path
// against, per transport and argument.
func TestServerConfigBases(t *testing.T) {
	home, proj, link := baseTree(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	slash := filepath.ToSlash
	root := filepath.Join(home, "root")
	for _, tc := range []struct {
		name  string
		cfg   ServerConfig
		roots []string
		want  []string
	}{
		{"stdio, no cwd: latch's folder", ServerConfig{Command: "srv"}, nil, []string{wd}},
		{"stdio, cwd", ServerConfig{Transport: TransportStdio, Command: "srv", Cwd: home}, nil, []string{home}},
		{"dot is the cwd", ServerConfig{Command: "srv", Cwd: home, Args: []string{"."}}, nil, []string{home}},
		{"~ and ~/proj, with the server's home", ServerConfig{Command: "srv", Args: []string{"~", "~/proj"}}, nil,
			[]string{wd, home, proj}},
		{"relative to the cwd", ServerConfig{Command: "srv", Cwd: home, Args: []string{"proj"}}, nil, []string{home, proj}},
		{"a file, a flag, a missing folder, a package name: none", ServerConfig{Command: "srv", Cwd: home,
			Args: []string{"notes.txt", "-y", "--dir=missing", "missing", "@scope/server-x"}}, nil, []string{home}},
		{"a flag's folder value", ServerConfig{Command: "srv", Cwd: home, Args: []string{"--dir=" + proj}}, nil, []string{home, proj}},
		{"a link to a folder: both names", ServerConfig{Command: "srv", Cwd: home, Args: []string{"link"}}, nil,
			[]string{home, link, proj}},
		{"a cwd through a link: both names", ServerConfig{Command: "srv", Cwd: link}, nil, []string{link, proj}},
		{"roots join, by both names", ServerConfig{Command: "srv", Cwd: home}, []string{root, link},
			[]string{home, link, proj, root}},
		{"in-process: latch's folder and the roots, no args, no cwd", ServerConfig{Transport: TransportInProcess, Args: []string{proj}, Cwd: home},
			[]string{root}, []string{wd, root}},
		{"http: unknown", ServerConfig{Transport: TransportHTTP, URL: "http://x", Args: []string{proj}}, []string{root}, nil},
		{"sse: unknown", ServerConfig{Transport: TransportSSE, URL: "http://x"}, []string{root}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for _, w := range tc.want {
				want = append(want, slash(w))
			}
			slices.Sort(want)
			got := tc.cfg.Bases(tc.roots, home)
			if !slices.Equal(got, want) {
				t.Errorf("Bases = %q, want %q", got, want)
			}
		})
	}
}

// TestManagerBases: a server's bases use the home its env sets, follow
// /roots add and keep a removed root (the server may not have asked for
// the new list yet); an unknown server has none.
func TestManagerBases(t *testing.T) {
	home, proj, _ := baseTree(t)
	other := t.TempDir()
	m := New([]ServerConfig{
		{Name: "fs", Command: "srv", Cwd: home, Args: []string{"~/proj"}},
		{Name: "own", Command: "srv", Cwd: home, Args: []string{"~"}, Env: map[string]string{"HOME": proj}},
		{Name: "web", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"},
	}, Options{Getenv: func(k string) string {
		if k == "HOME" || k == "USERPROFILE" {
			return home
		}
		return ""
	}})
	t.Cleanup(m.CloseAll)
	has := func(name, dir string) bool { return slices.Contains(m.Bases(name), filepath.ToSlash(dir)) }
	if !has("fs", proj) || !has("own", proj) {
		t.Errorf("~ in args: fs %q, own %q; want %s in both (own's env sets HOME)", m.Bases("fs"), m.Bases("own"), proj)
	}
	if m.Bases("web") != nil || m.Bases("nosuch") != nil {
		t.Errorf("web %q, nosuch %q: want nil", m.Bases("web"), m.Bases("nosuch"))
	}
	added, _, err := m.AddRoot(other)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(added)
	if !has("fs", added) || !has("fs", real) {
		t.Errorf("after /roots add %s: %q", added, m.Bases("fs"))
	}
	if _, _, err := m.RemoveRoot(other); err != nil {
		t.Fatal(err)
	}
	if !has("fs", added) {
		t.Errorf("after /roots remove %s: %q, want it kept", added, m.Bases("fs"))
	}
}

// TestPeerFilesystemBases: every folder the real server-filesystem says it
// allows (list_allowed_directories) — started with "." and "~/link", a
// link to proj, then given roots — is among latch's bases for it, so the gate
// judges a relative path against every folder the server may read it in.
func TestPeerFilesystemBases(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	home, _, _ := baseTree(t)
	cfg := ServerConfig{Name: "fs", Command: bin, Cwd: home, Args: []string{".", "~/link"},
		Env: map[string]string{"HOME": home}, Timeout: 30 * time.Second}
	m := New([]ServerConfig{cfg}, Options{})
	t.Cleanup(m.CloseAll)
	m.Start()
	waitState(t, m, "fs", StateConnected, 30*time.Second)
	mcptestutil.WaitFor(t, 10*time.Second, "fs__list_allowed_directories", func() bool {
		_, ok := m.Lookup("fs__list_allowed_directories")
		return ok
	})
	allowed := func() []string {
		res, err := m.Call(context.Background(), "fs__list_allowed_directories", nil, "")
		if err != nil || res.IsError {
			t.Fatalf("list_allowed_directories: %v %+v", err, res)
		}
		var dirs []string
		for _, l := range strings.Split(res.Text, "\n") {
			if filepath.IsAbs(strings.TrimSpace(l)) {
				dirs = append(dirs, filepath.ToSlash(strings.TrimSpace(l)))
			}
		}
		return dirs
	}
	covered := func(when string) {
		t.Helper()
		dirs, bases := allowed(), m.Bases("fs")
		if len(dirs) == 0 {
			t.Fatalf("%s: the server lists no folders", when)
		}
		for _, d := range dirs {
			if !slices.Contains(bases, d) {
				t.Errorf("%s: the server allows %s, latch's bases are %q", when, d, bases)
			}
		}
	}
	covered("started with args")

	root := filepath.Join(home, "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.AddRoot(root); err != nil {
		t.Fatal(err)
	}
	// Offered no roots at connect (there were none), the server is not
	// told; reconnected, it takes the roots in place of its args.
	if err := m.Connect("fs"); err != nil {
		t.Fatal(err)
	}
	mcptestutil.WaitFor(t, 10*time.Second, "the server's folders from the roots", func() bool {
		return slices.Contains(allowed(), filepath.ToSlash(root))
	})
	covered("given roots")
}

// BenchmarkManagerBases is the cost each call pays for its bases: a stdio
// server with a working folder, three arguments (a folder, a link, a
// flag) and two roots, read from the disk each time.
func BenchmarkManagerBases(b *testing.B) {
	home, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range []string{"proj", "r1", "r2"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, "proj"), filepath.Join(home, "link")); err != nil {
		b.Skip(err)
	}
	m := New([]ServerConfig{{Name: "fs", Command: "srv", Cwd: home, Args: []string{"-y", "~/proj", "link"}}},
		Options{Roots: []string{filepath.Join(home, "r1"), filepath.Join(home, "r2")},
			Getenv: func(string) string { return home }})
	b.Cleanup(m.CloseAll)
	b.ReportAllocs()
	for b.Loop() {
		if len(m.Bases("fs")) != 5 {
			b.Fatal(m.Bases("fs"))
		}
	}
}
