package themes

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/glamour/styles"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		dark     bool
		want     string
		wantDark bool
	}{
		{"auto", true, "dark", true},
		{"auto", false, "light", false},
		{"", false, "light", false},
		{"dark", false, "dark", true},
		{"LIGHT", true, "light", false},
		{"high-contrast", true, "high-contrast", true},
		{"high-contrast", false, "high-contrast", false},
		{"mono", true, "mono", true},
		{"no-color", false, "mono", false},
		{"nord", false, "nord", true},
		{"solarized-light", true, "solarized-light", false},
	}
	for _, tc := range tests {
		p, err := Lookup(tc.name, tc.dark)
		if err != nil || p.Name != tc.want || p.Dark != tc.wantDark {
			t.Errorf("Lookup(%q, %v) = %q dark=%v, %v; want %q dark=%v", tc.name, tc.dark, p.Name, p.Dark, err, tc.want, tc.wantDark)
		}
	}
	_, err := Lookup("neon", true)
	if err == nil || !strings.Contains(err.Error(), "dark") || !errors.Is(err, ErrUnknownTheme) {
		t.Errorf("an unknown theme should fail listing the themes, got %v", err)
	}
	if _, err := Lookup("drakula", true); err == nil || !strings.Contains(err.Error(), `did you mean "dracula"?`) {
		t.Errorf("a misspelt theme should get a suggestion, got %v", err)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	got := Names()
	for _, want := range []string{"auto", "dark", "light", "high-contrast", "mono", "nord", "dracula", "solarized-dark", "solarized-light"} {
		if !slices.Contains(got, want) {
			t.Errorf("Names() = %v, missing %q", got, want)
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("Names() = %v, not sorted", got)
	}
}

// allBuiltins resolves every built-in name against both backgrounds.
func allBuiltins(t *testing.T) map[string]Palette {
	t.Helper()
	out := map[string]Palette{}
	for _, n := range Names() {
		for _, dark := range []bool{true, false} {
			p, err := Lookup(n, dark)
			if err != nil {
				t.Fatalf("Lookup(%q, %v): %v", n, dark, err)
			}
			out[fmt.Sprintf("%s (dark=%v)", n, dark)] = p
		}
	}
	return out
}

func TestEveryPaletteIsComplete(t *testing.T) {
	t.Parallel()
	for label, p := range allBuiltins(t) {
		if !slices.Contains(glamourStyles, p.Glamour) {
			t.Errorf("%s: glamour style %q is not one of glamour's", label, p.Glamour)
		}
		v := reflect.ValueOf(p)
		for _, f := range fields {
			if f.kind != reflect.String || f.token == "glamour" {
				continue
			}
			c := v.Field(f.index).String()
			switch {
			case p.Mono && c != "":
				t.Errorf("%s: %s = %q; mono has no colours", label, f.token, c)
			case !p.Mono && c == "":
				t.Errorf("%s: %s is empty", label, f.token)
			case !p.Mono:
				if norm, ok := normaliseColour(c); !ok || norm != c {
					t.Errorf("%s: %s = %q is not a canonical colour", label, f.token, c)
				}
			}
		}
		s := Build(p)
		if s.Palette != p {
			t.Errorf("%s: Build did not keep the palette", label)
		}
	}
}

func TestGlamourStylesAreGlamours(t *testing.T) {
	t.Parallel()
	want := slices.Sorted(maps.Keys(styles.DefaultStyles))
	if !slices.Equal(glamourStyles, want) {
		t.Errorf("glamourStyles = %v; glamour has %v", glamourStyles, want)
	}
}

func TestHighContrastUsesANSI16(t *testing.T) {
	t.Parallel()
	for _, dark := range []bool{true, false} {
		p, _ := Lookup("high-contrast", dark)
		if !p.Bold {
			t.Errorf("high-contrast (dark=%v) should be bold", dark)
		}
		v := reflect.ValueOf(p)
		for _, f := range fields {
			if f.kind != reflect.String || f.token == "glamour" {
				continue
			}
			c := v.Field(f.index).String()
			if n, err := strconv.Atoi(c); err != nil || n < 0 || n > 15 {
				t.Errorf("high-contrast (dark=%v): %s = %q is not an ANSI colour 0-15", dark, f.token, c)
			}
		}
		if s := Build(p); !s.Chat.Error.GetBold() || !s.Status.Busy.GetBold() {
			t.Errorf("high-contrast (dark=%v): errors and busy states should be bold", dark)
		}
	}
}

func TestNeedsBackground(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"": true, "auto": true, "AUTO": true, "high-contrast": true, "mine": true,
		"dark": false, "light": false, "nord": false, "mono": false, "no-color": false,
	} {
		if got := NeedsBackground(name); got != want {
			t.Errorf("NeedsBackground(%q) = %v; want %v", name, got, want)
		}
	}
}

var colourLiteral = regexp.MustCompile(`^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$`)

// TestNoColourOutsideThemes enforces that every colour lives in themes/:
// no lipgloss colour constructor and no "#rrggbb" literal elsewhere
// (third_party/ holds copies of others' modules, not latch's code).
func TestNoColourOutsideThemes(t *testing.T) {
	root, _ := filepath.Abs("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "themes", "testdata", "node_modules", ".git", "third_party":
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
