package main

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// importRule is one row of the table: a package and its arrows.
type importRule struct {
	dir       string
	ours      []string // latch/... packages it may import
	forbidden []string // import path prefixes it must not use
}

// importRules is docs/ARCHITECTURE.md's table of arrows: for each package,
// the packages of ours it may import, and imports it must not have at all.
var importRules = []importRule{
	// cli: the commands, the top of the tree; it may import every package
	// of ours (mcp/oauth through mcp); no other list names it, so none
	// imports it.
	{"cli", []string{"latch/config", "latch/gateway", "latch/mcp", "latch/parkindex", "latch/permissions", "latch/session",
		"latch/themes", "latch/ui", "latch/ui/inbox", "latch/ui/inbox/sshinbox", "latch/ui/notice", "latch/ui/sanitize", "latch/words"}, nil},
	{"ui", []string{"latch/session", "latch/permissions", "latch/themes", "latch/ui/sanitize"},
		[]string{"github.com/mark3labs/mcp-go", "github.com/ollama/ollama"}},
	{"session", []string{"latch/fileinfo", "latch/mcp", "latch/permissions", "latch/ui/sanitize", "latch/session/eventlog",
		"latch/session/history", "latch/session/compaction", "latch/session/exactjson"},
		[]string{"github.com/charmbracelet"}},
	// The session's subpackages never import latch/session (it imports
	// them) nor anything above it.
	{"session/eventlog", nil, []string{"github.com/"}},
	{"session/history", []string{"latch/session/eventlog"}, []string{"github.com/"}},
	{"session/compaction", nil, []string{"github.com/charmbracelet", "github.com/mark3labs"}},
	{"session/exactjson", nil, []string{"github.com/charmbracelet", "github.com/mark3labs"}},
	// parkindex: the index of parked calls, a cache of the session logs
	// in SQLite; nothing of the user interface.
	{"parkindex", []string{"latch/fileinfo", "latch/session", "latch/session/exactjson"},
		[]string{"github.com/charmbracelet", "github.com/mark3labs/mcp-go", "github.com/ollama/ollama"}},
	{"gateway", []string{"latch/fileinfo", "latch/session", "latch/procgroup", "latch/ui/sanitize"},
		[]string{"github.com/ollama/ollama", "github.com/charmbracelet"}},
	{"config", []string{"latch/fileinfo", "latch/mcp", "latch/permissions", "latch/words", "latch/ui/sanitize"},
		[]string{"github.com/ollama/ollama", "github.com/charmbracelet", "github.com/mark3labs/mcp-go"}},
	{"mcp", []string{"latch/mcp/oauth", "latch/procgroup", "latch/ui/sanitize"}, []string{"github.com/ollama/ollama", "github.com/charmbracelet"}},
	// mcp/oauth: the standard library and mcp-go's OAuth helpers
	// (client/transport); never mcp, which imports it.
	{"mcp/oauth", []string{"latch/ui/sanitize"}, []string{"github.com/ollama/ollama", "github.com/charmbracelet",
		"github.com/mark3labs/mcp-go/mcp", "github.com/mark3labs/mcp-go/server"}},
	{"permissions", nil, []string{"github.com/"}},
	{"themes", []string{"latch/words"}, []string{"github.com/mark3labs", "github.com/ollama"}},
	{"words", nil, []string{"github.com/", "golang.org/"}},
	{"procgroup", nil, []string{"github.com/", "golang.org/"}},
	{"fileinfo", nil, []string{"github.com/", "golang.org/"}},
	{"ui/sanitize", nil, []string{"github.com/", "golang.org/"}},
	{"ui/inbox", []string{"latch/session", "latch/permissions", "latch/themes", "latch/ui/notice", "latch/ui/sanitize"},
		[]string{"github.com/mark3labs/mcp-go", "github.com/ollama/ollama"}},
	// ui/inbox/sshinbox: the inbox over SSH; it reaches the gateway as the
	// inbox does, through the state folder, never through gateway.
	{"ui/inbox/sshinbox", []string{"latch/fileinfo", "latch/ui/inbox", "latch/themes", "latch/ui/notice", "latch/ui/sanitize"},
		[]string{"github.com/mark3labs/mcp-go", "github.com/ollama/ollama"}},
	{"ui/notice", []string{"latch/ui/sanitize"}, []string{"github.com/", "golang.org/"}},
}

// neverPulledIn are, for some packages, import path prefixes that nothing
// they pull in may have, however indirectly (go list -deps): config reads
// files, and no terminal styling comes with it, not even through a
// package of ours (words, not themes, holds the helpers it shares).
var neverPulledIn = map[string][]string{
	"config":             {"github.com/charmbracelet", "github.com/ollama/ollama"},
	"session/eventlog":   {"github.com/"},
	"session/history":    {"github.com/"},
	"session/compaction": {"github.com/charmbracelet", "github.com/mark3labs"},
	"session/exactjson":  {"github.com/charmbracelet", "github.com/mark3labs"},
	"words":              {"github.com/", "golang.org/"},
	"procgroup":          {"github.com/", "golang.org/"},
	"fileinfo":           {"github.com/", "golang.org/"},
	"ui/sanitize":        {"github.com/", "golang.org/"},
}

// TestImportRules fails when a package imports what the architecture
// forbids: ui importing mcp or mcp-go, permissions importing anything of
// ours, and so on. Test files are not checked.
func TestImportRules(t *testing.T) {
	for _, r := range importRules {
		for _, imp := range imports(t, r.dir) {
			if strings.HasPrefix(imp, "latch/") && !slices.Contains(r.ours, imp) {
				t.Errorf("%s imports %s; docs/ARCHITECTURE.md allows only %v", r.dir, imp, r.ours)
			}
			for _, f := range r.forbidden {
				if strings.HasPrefix(imp, f) {
					t.Errorf("%s imports %s, which docs/ARCHITECTURE.md forbids it", r.dir, imp)
				}
			}
		}
		never := neverPulledIn[r.dir]
		if len(never) == 0 {
			continue
		}
		for _, dep := range deps(t, r.dir) {
			for _, f := range never {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s pulls in %s (go list -deps ./%s), which docs/ARCHITECTURE.md forbids it", r.dir, dep, r.dir)
				}
			}
		}
	}
}

// deps lists every package the non-test files of dir pull in, however
// indirectly, as the go command resolves them for this platform.
func deps(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "./"+dir).Output()
	if err != nil {
		t.Fatalf("go list -deps ./%s: %v", dir, err)
	}
	return strings.Fields(string(out))
}

// helperPackages are the packages for tests only (fakes, test servers,
// helpers): they are in no row of the table, and main may import them
// only from its tests.
var helperPackages = []string{"mcp/mcptestutil", "mcp/oauthtest", "session/eventtest", "session/ollamatest"}

// TestImportTableCoversEveryPackage fails when a package of latch has no
// row in importRules (and is neither main nor a test helper): a new
// package says what it may import before it imports anything.
func TestImportTableCoversEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		dir, ok := strings.CutPrefix(pkg, "latch/")
		if !ok || slices.Contains(helperPackages, dir) {
			continue // main, or a test helper
		}
		if !slices.ContainsFunc(importRules, func(r importRule) bool { return r.dir == dir }) {
			t.Errorf("package %s has no row in importRules (arch_test.go) nor in docs/ARCHITECTURE.md's table", pkg)
		}
	}
}

// imports lists the imports of the non-test Go files in dir.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no imports read in %s", dir)
	}
	return out
}
