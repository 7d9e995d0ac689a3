package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// importRules is docs/ARCHITECTURE.md's table of arrows: for each package,
// the packages of ours it may import, and imports it must not have at all.
var importRules = []struct {
	dir       string
	ours      []string // latch/... packages it may import
	forbidden []string // import path prefixes it must not use
}{
	{"ui", []string{"latch/session", "latch/permissions", "latch/themes", "latch/ui/sanitize"},
		[]string{"github.com/mark3labs/mcp-go", "github.com/ollama/ollama"}},
	{"session", []string{"latch/mcp", "latch/permissions", "latch/ui/sanitize"},
		[]string{"github.com/charmbracelet"}},
	{"gateway", []string{"latch/session", "latch/ui/sanitize"},
		[]string{"github.com/ollama/ollama", "github.com/charmbracelet"}},
	{"config", []string{"latch/mcp", "latch/permissions", "latch/themes", "latch/ui/sanitize"},
		[]string{"github.com/ollama/ollama", "github.com/charmbracelet", "github.com/mark3labs/mcp-go"}},
	{"mcp", []string{"latch/mcp/oauth", "latch/ui/sanitize"}, []string{"github.com/ollama/ollama", "github.com/charmbracelet"}},
	// mcp/oauth: the standard library and mcp-go's OAuth helpers
	// (client/transport); never mcp, which imports it.
	{"mcp/oauth", []string{"latch/ui/sanitize"}, []string{"github.com/ollama/ollama", "github.com/charmbracelet",
		"github.com/mark3labs/mcp-go/mcp", "github.com/mark3labs/mcp-go/server"}},
	{"permissions", nil, []string{"github.com/"}},
	{"themes", nil, []string{"github.com/mark3labs", "github.com/ollama"}},
	{"ui/sanitize", nil, []string{"github.com/", "golang.org/"}},
	{"ui/inbox", []string{"latch/session", "latch/permissions", "latch/themes", "latch/ui/notice", "latch/ui/sanitize"},
		[]string{"github.com/mark3labs/mcp-go", "github.com/ollama/ollama"}},
	{"ui/notice", []string{"latch/ui/sanitize"}, []string{"github.com/", "golang.org/"}},
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
