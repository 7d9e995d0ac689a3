package permissions

import (
	"encoding/json"
	"testing"
)

// readmeDeny is the README's "never let any tool touch ~/.ssh".
func readmeDeny(t testing.TB) Rule {
	return mustRule(t, "", "*", map[string]any{"*": "~/.ssh/**"}, "deny")
}

// denied reports whether g's rules deny c (auto mode: nothing else does).
func denied(g *Gate, c Call) bool { return g.Decide(c).Decision == Deny }

// withBases is c with the folders its server resolves relative paths in.
func withBases(c Call, bases ...string) Call {
	c.Bases = bases
	return c
}

// TestRelativePathsAreJudgedAsTheServerReadsThem: the spellings of
// issue 30 reach ~/.ssh through a server whose folder is the home, or
// whose folder latch does not know; the deny rule stops each of them.
func TestRelativePathsAreJudgedAsTheServerReadsThem(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{readmeDeny(t)}})
	for _, p := range []string{".ssh/id_rsa", "./.ssh/id_rsa", "proj/../.ssh/id_rsa", `.ssh\id_rsa`, ".ssh", "../me/.ssh/id_rsa",
		"file:///home/me/.ssh/id_rsa", "FILE://localhost/home/me/%2essh/id_rsa"} {
		if !denied(g, withBases(fsRead(p), testHome)) {
			t.Errorf("%q with base ~: not denied", p)
		}
		if !denied(g, withBases(fsRead(p), "/srv/w", testHome)) {
			t.Errorf("%q with bases /srv/w and ~: not denied (one base reads ~/.ssh)", p)
		}
		if !denied(g, fsRead(p)) {
			t.Errorf("%q with no base known: not denied", p)
		}
	}
	// Elsewhere, the same names are other files.
	for _, p := range []string{".ssh/id_rsa", "notes.txt", "src/a.go"} {
		if denied(g, withBases(fsRead(p), "/srv/w")) {
			t.Errorf("%q with base /srv/w: denied, but it is /srv/w/%s", p, p)
		}
	}
	// A file of the folder's own, with no base known: nothing in it
	// reaches into ~/.ssh, unless it climbs out of its base.
	if denied(g, fsRead("notes.txt")) {
		t.Error("notes.txt with no base known: denied")
	}
	if !denied(g, fsRead("../id_rsa")) {
		t.Error("../id_rsa with no base known: not denied (it could climb into ~/.ssh)")
	}
	// A base inside the denied folder puts every relative path in it.
	if !denied(g, withBases(fsRead("notes.txt"), testHome+"/.ssh")) {
		t.Error("notes.txt with base ~/.ssh: not denied")
	}
}

// TestAllowRuleHoldsForEveryBase: a relative path is allowed only when
// every base puts it in the rule's folder, never with no base known.
func TestAllowRuleHoldsForEveryBase(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Ask, Home: testHome, Rules: []Rule{
		mustRule(t, "", "fs__read_text_file", map[string]any{"path": "~/src/**"}, "allow")}, Servers: []string{"fs"}})
	cases := []struct {
		call Call
		want bool
	}{
		{withBases(fsRead("a.go"), testHome+"/src"), true},
		{withBases(fsRead("./p/a.go"), testHome+"/src", testHome+"/src/q"), true},
		{withBases(fsRead("a.go"), testHome+"/src", "/tmp"), false},
		{withBases(fsRead("../.bashrc"), testHome+"/src"), false},
		{fsRead("a.go"), false},
		{fsRead("~/src/a.go"), true},
	}
	for _, tc := range cases {
		if got := g.Decide(tc.call).Decision == Allow; got != tc.want {
			t.Errorf("%v with bases %q: allowed %v, want %v", tc.call.Args, tc.call.Bases, got, tc.want)
		}
	}
}

// TestWordsStayWords: "*" never turns a plain word into a path, so
// server-memory's entities run under the README's deny rule, whatever the
// bases; a path in an observation is still a path.
func TestWordsStayWords(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{readmeDeny(t),
		mustRule(t, "", "*", map[string]any{"*": "/etc/*"}, "deny")}})
	entities := func(obs ...any) Call {
		return Call{Server: "mem", Tool: "create_entities", Name: "mem__create_entities", Args: map[string]any{
			"entities": []any{map[string]any{"name": "tea", "entityType": "person", "observations": obs}}}}
	}
	for _, c := range []Call{entities("likes tea"), withBases(entities("likes tea", "passwd"), testHome+"/.ssh")} {
		if denied(g, c) {
			t.Errorf("%v with bases %q: denied", c.Args, c.Bases)
		}
	}
	if !denied(g, withBases(entities("likes tea", ".ssh/id_rsa"), testHome)) {
		t.Error("an observation naming .ssh/id_rsa with base ~: not denied")
	}
}

// TestUnicodeSpellings: NFD and NFC are one name; a path with an
// invisible character or a slash look-alike is never allowed, and is
// denied as a normalising server would read it; case folds where the
// file system does.
func TestUnicodeSpellings(t *testing.T) {
	t.Parallel()
	deny := NewGate(Policy{Mode: Auto, Home: testHome, PathCase: PathCaseExact, Rules: []Rule{readmeDeny(t),
		mustRule(t, "", "*", map[string]any{"*": "~/Privé/**"}, "deny")}})
	for _, p := range []string{"~/Prive\u0301/x", "~/Privé/x", "~/.ss\u200bh/id_rsa", "~\uff0f.ssh\uff0fid_rsa",
		"~/\u202e.ssh/id_rsa", "~/.ssh\u2215id_rsa", "\ufeff~/.ssh/id_rsa", "~/\uff0essh/id_rsa"} {
		if !denied(deny, fsRead(p)) {
			t.Errorf("%q: not denied", p)
		}
	}
	nfd := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{
		mustRule(t, "", "*", map[string]any{"*": "~/Prive\u0301/**"}, "deny")}})
	if !denied(nfd, fsRead("~/Privé/x")) {
		t.Error("an NFD pattern does not stop the NFC spelling")
	}
	allow := NewGate(Policy{Mode: Ask, Home: testHome, PathCase: PathCaseExact, Servers: []string{"fs"}, Rules: []Rule{
		mustRule(t, "", "fs__read_text_file", map[string]any{"path": "~/src/**"}, "allow")}})
	for _, p := range []string{"~/src/a\u200b.go", "~/src/\u202eog.a", "~/src\uff0f..\uff0f.ssh/id_rsa", "~/src/a\u2060"} {
		if allow.Decide(fsRead(p)).Decision == Allow {
			t.Errorf("%q: allowed", p)
		}
	}
	if allow.Decide(fsRead("~/src/Prive\u0301")).Decision != Allow {
		t.Error("~/src/Prive\u0301 (NFD): not allowed")
	}
	fold := NewGate(Policy{Mode: Auto, Home: testHome, PathCase: PathCaseFold, Rules: []Rule{readmeDeny(t)}})
	if !denied(fold, fsRead("~/.SSH/id_rsa")) || !denied(fold, fsRead("/HOME/ME/.Ssh/id_rsa")) {
		t.Error("case-folded: ~/.SSH not denied")
	}
	if denied(deny, fsRead("~/.SSH/id_rsa")) {
		t.Error("case-exact: ~/.SSH denied")
	}
	foldAllow := NewGate(Policy{Mode: Ask, Home: testHome, PathCase: PathCaseFold, Servers: []string{"fs"}, Rules: []Rule{
		mustRule(t, "", "fs__read_text_file", map[string]any{"path": "~/Src/**"}, "allow")}})
	if foldAllow.Decide(fsRead("~/src/a.go")).Decision != Allow {
		t.Error("case-folded: ~/src/a.go not allowed by ~/Src/**")
	}
}

// TestObjectKeysArePaths: "*" reads the keys of objects too, at any
// depth.
func TestObjectKeysArePaths(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{readmeDeny(t)}})
	for _, args := range []map[string]any{
		{"files": map[string]any{"~/.ssh/authorized_keys": "ssh-ed25519 AAAA"}},
		{"a": []any{map[string]any{"b": map[string]any{"/home/me/.ssh/config": float64(1)}}}},
		{"~/.ssh/id_rsa": true},
	} {
		c := Call{Server: "fs", Tool: "write", Name: "fs__write", Args: args}
		if !denied(g, c) {
			t.Errorf("%v: not denied", args)
		}
	}
	// A rule on one argument reads its keys too.
	one := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{
		mustRule(t, "", "*", map[string]any{"files": "~/.ssh/**"}, "deny")}})
	if !denied(one, Call{Server: "fs", Tool: "write", Name: "fs__write",
		Args: map[string]any{"files": map[string]any{"~/.ssh/authorized_keys": "x"}}}) {
		t.Error("a rule on files does not read its keys")
	}
	// An allow rule on every string does not ask a word key to match.
	allow := NewGate(Policy{Mode: Ask, Home: testHome, Servers: []string{"fs"}, Rules: []Rule{
		mustRule(t, "", "fs__write", map[string]any{"*": "~/src/**"}, "allow")}})
	if allow.Decide(Call{Server: "fs", Tool: "write", Name: "fs__write",
		Args: map[string]any{"files": map[string]any{"~/src/a": "~/src/b"}}}).Decision != Allow {
		t.Error("allow ~/src/** refuses a call whose every path is in ~/src")
	}
	if allow.Decide(Call{Server: "fs", Tool: "write", Name: "fs__write",
		Args: map[string]any{"files": map[string]any{"~/.bashrc": "~/src/b"}}}).Decision == Allow {
		t.Error("allow ~/src/** allows a key outside ~/src")
	}
}

// TestLaxValues: a deny or ask rule on a boolean or a number also
// matches what a lax validator reads as it; an allow rule does not.
func TestLaxValues(t *testing.T) {
	t.Parallel()
	write := func(k string, v any) Call {
		return Call{Server: "fs", Tool: "write", Name: "fs__write", Args: map[string]any{k: v}}
	}
	deny := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{
		mustRule(t, "", "*", map[string]any{"overwrite": true}, "deny"),
		mustRule(t, "", "*", map[string]any{"dry": false}, "deny"),
		mustRule(t, "", "*", map[string]any{"n": float64(42)}, "deny")}})
	for _, v := range []any{true, "true", "True", "TRUE", float64(1), json.Number("1"), "1", "on", "yes", " yes "} {
		if !denied(deny, write("overwrite", v)) {
			t.Errorf("overwrite=%#v: not denied", v)
		}
	}
	for _, v := range []any{false, "false", "False", float64(0), "0", "off", "no"} {
		if !denied(deny, write("dry", v)) {
			t.Errorf("dry=%#v: not denied", v)
		}
	}
	for _, v := range []any{float64(42), json.Number("42"), json.Number("42.0"), json.Number("4.2e1"), "42", " 42", "42.00"} {
		if !denied(deny, write("n", v)) {
			t.Errorf("n=%#v: not denied", v)
		}
	}
	for _, v := range []any{"nope", "2", float64(0), "", "truthy"} {
		if denied(deny, write("overwrite", v)) {
			t.Errorf("overwrite=%#v: denied", v)
		}
	}
	allow := NewGate(Policy{Mode: Ask, Home: testHome, Servers: []string{"fs"}, Rules: []Rule{
		mustRule(t, "", "fs__write", map[string]any{"overwrite": true}, "allow"),
		mustRule(t, "", "fs__write", map[string]any{"n": float64(42)}, "allow")}})
	for _, c := range []Call{write("overwrite", "true"), write("overwrite", float64(1)), write("n", "42")} {
		if allow.Decide(c).Decision == Allow {
			t.Errorf("%v: allowed by an exact rule", c.Args)
		}
	}
	for _, c := range []Call{write("overwrite", true), write("n", json.Number("42"))} {
		if allow.Decide(c).Decision != Allow {
			t.Errorf("%v: not allowed by its exact rule", c.Args)
		}
	}
}

// TestNumbersCompareExactly: a number is not rounded through float64
// before it is compared: 9007199254740993 is not 9007199254740992.
func TestNumbersCompareExactly(t *testing.T) {
	t.Parallel()
	for _, rule := range []any{float64(9007199254740992), json.Number("9007199254740992")} {
		g := NewGate(Policy{Mode: Ask, Home: testHome, Servers: []string{"fs"}, Rules: []Rule{
			mustRule(t, "", "fs__write", map[string]any{"n": rule}, "allow")}})
		call := func(v any) Call {
			return Call{Server: "fs", Tool: "write", Name: "fs__write", Args: map[string]any{"n": v}}
		}
		if g.Decide(call(json.Number("9007199254740993"))).Decision == Allow {
			t.Errorf("rule n=%v allows 9007199254740993", rule)
		}
		if g.Decide(call(json.Number("9007199254740992"))).Decision != Allow {
			t.Errorf("rule n=%v does not allow 9007199254740992", rule)
		}
		if g.Decide(call(json.Number("9.007199254740992e15"))).Decision != Allow {
			t.Errorf("rule n=%v does not allow 9.007199254740992e15", rule)
		}
	}
	deny := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{
		mustRule(t, "", "*", map[string]any{"id": json.Number("1234567890123456789")}, "deny")}})
	if denied(deny, Call{Server: "fs", Tool: "w", Name: "fs__w", Args: map[string]any{"id": json.Number("1234567890123456788")}}) {
		t.Error("1234567890123456788 is denied by a rule on 1234567890123456789")
	}
	if !denied(deny, Call{Server: "fs", Tool: "w", Name: "fs__w", Args: map[string]any{"id": "1234567890123456789"}}) {
		t.Error("\"1234567890123456789\" is not denied by a rule on 1234567890123456789")
	}
}
