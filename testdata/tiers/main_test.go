package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writeTree writes files (path → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestTiersFollowTheCalls: a test that reaches a helper running a real
// program, however deep, is end to end, and so is one that asks
// testing.Short (long by its own work); the others are fast; the
// pattern matches the first and not the second, and testdata is left out.
func TestTiersFollowTheCalls(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a_test.go": `package main
import "testing"
func TestDeep(t *testing.T) { newRig(t).run() }
func TestUnit(t *testing.T) { _ = 1 + 1 }
func TestFlood(t *testing.T) { if testing.Short() { t.Skip() } }
func ExampleUnit() {}
func Testable() {}
func newRig(t *testing.T) *rig { return &rig{bin: latchBinary(t)} }
type rig struct{ bin string }
func (r *rig) run() {}
func latchBinary(t *testing.T) string { return "" }
`,
		"mcp/p_test.go": `package mcp
import ("testing"; "x/mcptestutil")
func TestPeer(t *testing.T) { go func() { mcptestutil.NPMBin(t, "memory") }() }
func TestLocal(t *testing.T) {}
`,
		"testdata/x/x_test.go": `package x
func TestIgnored(t *testing.T) { latchBinary(t) }
`,
	})
	tr, err := sortTests(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.check(); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(tr.pattern())
	for name, e2e := range map[string]bool{"TestDeep": true, "TestPeer": true, "TestFlood": true, "TestUnit": false, "ExampleUnit": false,
		"TestLocal": false, "TestIgnored": false, "TestDeepX": false} {
		if re.MatchString(name) != e2e {
			t.Errorf("%s: end to end %v, want %v (pattern %s)", name, !e2e, e2e, tr.pattern())
		}
	}
	if got := strings.Join(tr.fast[root], " "); got != "TestUnit ExampleUnit" {
		t.Errorf("fast tests of the root: %q", got)
	}
}

// TestTiersRefuseANameInBoth: one name end to end in one package and
// fast in another cannot be split by one pattern: the run fails, naming
// both.
func TestTiersRefuseANameInBoth(t *testing.T) {
	root := writeTree(t, map[string]string{
		"a/a_test.go": `package a
func TestSame(t *testing.T) { startLatch(t) }
`,
		"b/b_test.go": `package b
func TestSame(t *testing.T) {}
`,
	})
	tr, err := sortTests(root)
	if err != nil {
		t.Fatal(err)
	}
	err = tr.check()
	if err == nil || !strings.Contains(err.Error(), "TestSame is end to end in "+filepath.Join(root, "a")) {
		t.Fatalf("check: %v, want TestSame named in both tiers", err)
	}
}

// TestE2EPackagesMostFirst: -pkgs names the packages with end-to-end
// tests as go test takes them, the one with the most first, and only
// those.
func TestE2EPackagesMostFirst(t *testing.T) {
	tr := &tiers{
		e2e:  map[string][]string{"mcp": {"TestA"}, "cli": {"TestB", "TestC"}, ".": {"TestD"}, "ui/inbox": {"TestE"}},
		fast: map[string][]string{"words": {"TestF"}},
	}
	if got := strings.Join(tr.e2ePackages(), " "); got != "./cli/ . ./mcp/ ./ui/inbox/" {
		t.Errorf("e2ePackages = %q", got)
	}
	if got := (&tiers{}).e2ePackages(); len(got) != 1 || got[0] != "." {
		t.Errorf("no end-to-end test: %q, want the current package (run with -run '^$')", got)
	}
}
