package themes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		dark bool
		want string
	}{
		{"auto", true, "dark"},
		{"auto", false, "light"},
		{"", false, "light"},
		{"dark", false, "dark"},
		{"LIGHT", true, "light"},
	}
	for _, tc := range tests {
		p, err := Lookup(tc.name, tc.dark)
		if err != nil || p.Name != tc.want {
			t.Errorf("Lookup(%q, %v) = %q, %v; want %q", tc.name, tc.dark, p.Name, err, tc.want)
		}
	}
	if _, err := Lookup("neon", true); err == nil || !strings.Contains(err.Error(), "dark") {
		t.Errorf("an unknown theme should fail listing the themes, got %v", err)
	}
}

func TestEveryPaletteIsComplete(t *testing.T) {
	for name, p := range builtin {
		for field, v := range map[string]string{"Text": p.Text, "Muted": p.Muted, "Subtle": p.Subtle, "Accent": p.Accent,
			"User": p.User, "Error": p.Error, "Warning": p.Warning, "StatusFg": p.StatusFg, "StatusBg": p.StatusBg,
			"Border": p.Border, "Glamour": p.Glamour} {
			if v == "" {
				t.Errorf("theme %s: %s is empty", name, field)
			}
		}
	}
}

var colourLiteral = regexp.MustCompile(`^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$`)

// TestNoColourOutsideThemes enforces that every colour lives in themes/:
// no lipgloss colour constructor and no "#rrggbb" literal elsewhere.
func TestNoColourOutsideThemes(t *testing.T) {
	root, _ := filepath.Abs("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "themes", "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "lipgloss" &&
					(n.Sel.Name == "Color" || n.Sel.Name == "AdaptiveColor" || n.Sel.Name == "ANSIColor" || n.Sel.Name == "CompleteColor") {
					t.Errorf("%s: lipgloss.%s outside themes/", path, n.Sel.Name)
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && colourLiteral.MatchString(s) {
					t.Errorf("%s: colour literal %s outside themes/", path, n.Value)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
