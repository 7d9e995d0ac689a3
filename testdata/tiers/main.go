// Command tiers sorts the module's tests into the Makefile's two tiers.
// A test is in the long, end-to-end tier (make test-e2e) when it
// reaches, through the functions of its own package's test files, one of
// the helpers that run real programs: the built latch binary
// (latchBinary, startLatch) or an npm server or node script of
// testdata/npm (mcptestutil.NPMBin and its kin, startNodeClient); or when
// it asks testing.Short, as a test long by its own work does (a flood,
// thousands of random cases) to be left out of a quick run. Every other
// test is fast (make test-fast). The tiers follow from the code, so a new
// test lands in one of them on its own.
//
// It prints a regular expression matching the end-to-end tests' names:
// make test-e2e runs it with go test -run, make test-fast with -skip, so
// together they run every test once. With -list it prints each tier's
// tests by package instead; with -pkgs, the packages that have end-to-end
// tests, those with the most first (make test-e2e runs only these, and
// starts the longest first). It fails when one name is end to end in one
// package and fast in another: one pattern could not then split them.
//
// It reads the module from the current directory: go run ./testdata/tiers
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// slowHelpers are the names whose use puts a test in the long tier.
var slowHelpers = []string{"latchBinary", "startLatch", "NPMBin", "NPMPackage", "StartNPMHTTP", "startNodeClient", "Short"}

func main() {
	list := flag.Bool("list", false, "print each tier's tests by package")
	pkgs := flag.Bool("pkgs", false, "print the packages with end-to-end tests, the most first")
	flag.Parse()
	tiers, err := sortTests(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tiers:", err)
		os.Exit(1)
	}
	if err := tiers.check(); err != nil {
		fmt.Fprintln(os.Stderr, "tiers:", err)
		os.Exit(1)
	}
	if *list {
		tiers.print()
		return
	}
	if *pkgs {
		fmt.Println(strings.Join(tiers.e2ePackages(), " "))
		return
	}
	fmt.Println(tiers.pattern())
}

// tiers are the tests of each package directory, by tier.
type tiers struct {
	e2e, fast map[string][]string // directory → test names
}

// sortTests parses the test files of every package under root.
func sortTests(root string) (*tiers, error) {
	t := &tiers{e2e: map[string][]string{}, fast: map[string][]string{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return t.sortDir(path)
		}
		return nil
	})
	return t, err
}

// sortDir sorts the tests of one directory's test files (its package and
// its external test package together).
func (t *tiers) sortDir(dir string) error {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if len(files) == 0 {
		return nil
	}
	calls := map[string]map[string]bool{} // function or method name → names it uses
	var tests []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			uses := calls[fn.Name.Name]
			if uses == nil {
				uses = map[string]bool{}
				calls[fn.Name.Name] = uses
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					uses[n.Name] = true
				case *ast.SelectorExpr:
					uses[n.Sel.Name] = true
				}
				return true
			})
			if fn.Recv == nil && isTest(fn.Name.Name) {
				tests = append(tests, fn.Name.Name)
			}
		}
	}
	slow := reaching(calls, slowHelpers)
	for _, name := range tests {
		if slow[name] {
			t.e2e[dir] = append(t.e2e[dir], name)
		} else {
			t.fast[dir] = append(t.fast[dir], name)
		}
	}
	return nil
}

// isTest says whether a function is one go test runs as a test: TestX,
// FuzzX, ExampleX.
func isTest(name string) bool {
	for _, p := range []string{"Test", "Fuzz", "Example"} {
		if rest, ok := strings.CutPrefix(name, p); ok && (rest == "" || !isLower(rest[0])) {
			return true
		}
	}
	return false
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// reaching is the set of functions that use, directly or through other
// functions of the package, one of roots. Names stand for functions and
// methods alike: a method shares the fate of every function of its name.
func reaching(calls map[string]map[string]bool, roots []string) map[string]bool {
	slow := map[string]bool{}
	for _, r := range roots {
		slow[r] = true
	}
	for changed := true; changed; {
		changed = false
		for name, uses := range calls {
			if slow[name] {
				continue
			}
			for u := range uses {
				if slow[u] && u != name {
					slow[name], changed = true, true
					break
				}
			}
		}
	}
	return slow
}

// check fails when a name is end to end in one package and fast in
// another.
func (t *tiers) check() error {
	fast := map[string]string{}
	for dir, names := range t.fast {
		for _, n := range names {
			fast[n] = dir
		}
	}
	var clash []string
	for dir, names := range t.e2e {
		for _, n := range names {
			if other, ok := fast[n]; ok {
				clash = append(clash, fmt.Sprintf("%s is end to end in %s and fast in %s", n, dir, other))
			}
		}
	}
	if len(clash) > 0 {
		sort.Strings(clash)
		return fmt.Errorf("one name in both tiers (rename one of them):\n  %s", strings.Join(clash, "\n  "))
	}
	return nil
}

// pattern matches the end-to-end tests' names, and no other test's.
func (t *tiers) pattern() string {
	seen := map[string]bool{}
	var names []string
	for _, ns := range t.e2e {
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return "^$"
	}
	sort.Strings(names)
	return "^(" + strings.Join(names, "|") + ")$"
}

// e2ePackages are the package directories with end-to-end tests, as go
// test takes them (./cli/), the one with the most tests first (a tie by
// name): go test starts them in this order, so the longest, started
// first, is not left running alone at the end.
func (t *tiers) e2ePackages() []string {
	dirs := make([]string, 0, len(t.e2e))
	for d := range t.e2e {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		a, b := dirs[i], dirs[j]
		if len(t.e2e[a]) != len(t.e2e[b]) {
			return len(t.e2e[a]) > len(t.e2e[b])
		}
		return a < b
	})
	if len(dirs) == 0 {
		return []string{"."} // go test of no package would test the current one
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		if d == "." {
			out[i] = "."
		} else {
			out[i] = "./" + filepath.ToSlash(d) + "/"
		}
	}
	return out
}

// print lists each tier's tests by package.
func (t *tiers) print() {
	for _, tier := range []struct {
		name  string
		tests map[string][]string
	}{{"e2e", t.e2e}, {"fast", t.fast}} {
		dirs := make([]string, 0, len(tier.tests))
		total := 0
		for d, ns := range tier.tests {
			dirs = append(dirs, d)
			total += len(ns)
		}
		sort.Strings(dirs)
		fmt.Printf("%s: %d tests\n", tier.name, total)
		for _, d := range dirs {
			ns := tier.tests[d]
			sort.Strings(ns)
			fmt.Printf("  %s (%d): %s\n", d, len(ns), strings.Join(ns, " "))
		}
	}
}
