package permissions

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestDeriveRules: the rules A can save for a call, narrowest first — the
// exact values, then the folder of every path argument in one rule — and
// never a folder glob that reaches beyond the call's folder or leaves a
// path argument free.
func TestDeriveRules(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"a file in the project", map[string]any{"path": "~/src/proj/a.go", "tail": float64(20)},
			[]string{"fs__read_text_file(path=~/src/proj/a.go, tail=20)", "fs__read_text_file(path=~/src/proj/**)"}},
		{"judged by what it cleans to", map[string]any{"path": "/home/me/src/proj/x/../a.go"},
			[]string{"fs__read_text_file(path=~/src/proj/a.go)", "fs__read_text_file(path=~/src/proj/**)"}},
		{"a file at the root: exact only", map[string]any{"path": "/a.txt"}, []string{"fs__read_text_file(path=/a.txt)"}},
		{"a file in home: exact only", map[string]any{"path": "~/notes.txt"}, []string{"fs__read_text_file(path=~/notes.txt)"}},
		{"home through ..: exact only", map[string]any{"path": "~/src/../notes.txt"}, []string{"fs__read_text_file(path=~/notes.txt)"}},
		{"the current folder: exact only", map[string]any{"path": "./a.txt"}, []string{"fs__read_text_file(path=./a.txt)"}},
		{"a relative folder", map[string]any{"path": "src/a.go"}, []string{"fs__read_text_file(path=src/a.go)", "fs__read_text_file(path=src/**)"}},
		{"~user is not a folder of ours", map[string]any{"path": "~bob/x/y"}, []string{`fs__read_text_file(path=re:~bob/x/y)`}},
		{"a folder a glob would read as a pattern", map[string]any{"path": "/srv/*/a"}, []string{`fs__read_text_file(path=re:/srv/\*/a)`}},
		{"a plain string", map[string]any{"command": "git status", "force": false},
			[]string{"fs__read_text_file(command=git status, force=false)"}},
		{"a string a glob would read", map[string]any{"q": "a*b?"}, []string{`fs__read_text_file(q=re:a\*b\?)`}},
		{"a pattern-looking string", map[string]any{"q": "re:x"}, []string{`fs__read_text_file(q=re:re:x)`}},
		{"a list: no exact rule", map[string]any{"path": "/srv/p/a", "more": []any{"x"}}, []string{"fs__read_text_file(path=/srv/p/**)"}},
		{"an empty string", map[string]any{"q": ""}, nil},
		{"no arguments", map[string]any{}, nil},
		{"backslashes: no folder", map[string]any{"path": `C:\Users\me\a.txt`}, nil},
		{"a long value: not offered", map[string]any{"text": strings.Repeat("x", 500)}, nil},
		{"two paths in one folder: both held", map[string]any{"source": "~/proj/a", "destination": "~/proj/b"},
			[]string{"fs__read_text_file(destination=~/proj/b, source=~/proj/a)", "fs__read_text_file(destination=~/proj/**, source=~/proj/**)"}},
		{"two paths in two folders: each held in its own", map[string]any{"source": "~/proj/a", "destination": "~/.ssh/b"},
			[]string{"fs__read_text_file(destination=~/.ssh/b, source=~/proj/a)", "fs__read_text_file(destination=~/.ssh/**, source=~/proj/**)"}},
		{"a path with no folder: no folder rule", map[string]any{"source": "~/proj/a", "destination": "~/authorized_keys"},
			[]string{"fs__read_text_file(destination=~/authorized_keys, source=~/proj/a)"}},
		{"a file named by its argument's name: no folder rule", map[string]any{"path": "~/proj/a", "target": "notes.txt"},
			[]string{"fs__read_text_file(path=~/proj/a, target=notes.txt)"}},
		{"a path in a list: no folder rule leaves it free", map[string]any{"path": "~/proj/a", "more": []any{"/etc/passwd", "~/proj/b"}}, nil},
		{"a list of paths in one folder", map[string]any{"paths": []any{"~/proj/a", "~/proj/b"}}, []string{"fs__read_text_file(paths=~/proj/**)"}},
		{"a path as an object's key: no folder rule", map[string]any{"path": "~/proj/a", "files": map[string]any{"~/.ssh/authorized_keys": "k"}}, nil},
		{"words are no paths", map[string]any{"path": "~/proj/a", "note": "likes tea"},
			[]string{"fs__read_text_file(note=likes tea, path=~/proj/a)", "fs__read_text_file(path=~/proj/**)"}},
		// A number as the call wrote it (json.Number), never rounded
		// through float64 (9007199254740992) into the rule a person saves.
		{"a number past 2^53", map[string]any{"path": "/a.txt", "id": json.Number("9007199254740993")},
			[]string{"fs__read_text_file(id=9007199254740993, path=/a.txt)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file", Args: tc.args, Bases: []string{"/srv/w"}}
			var got []string
			for _, spec := range DeriveRules(c, testHome) {
				got = append(got, FormatCompact(spec))
				if spec.Decision != "allow" {
					t.Errorf("%s: decision %q", FormatCompact(spec), spec.Decision)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestPropertyDerivedRules: over random paths full of "..", ".", "//",
// "~user" and '\', every rule derived from a call allows that call in
// ask mode, and a folder rule never allows a path whose every reading
// does not lie in the call's folder — it is never /**, ~/** or **.
func TestPropertyDerivedRules(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 3))
	folders := 0
	for i := range propertyCases / 10 {
		value := randomPath(rng)
		c := fsRead(value)
		for _, spec := range DeriveRules(c, testHome) {
			text := FormatCompact(spec)
			r, err := CompileRule(spec, "", "derived", testHome)
			if err != nil {
				t.Fatalf("case %d: %q: %s does not compile: %v", i, value, text, err)
			}
			g := NewGate(Policy{Mode: Ask, Home: testHome, Rules: []Rule{r}, Servers: []string{"fs"}})
			if v := g.Decide(c); v.Decision != Allow {
				t.Fatalf("case %d: %q: %s does not allow its own call: %s", i, value, text, v.Reason)
			}
			glob, ok := spec.Args["path"].(string)
			if !ok || !strings.HasSuffix(glob, "/**") {
				continue
			}
			folders++
			folder := resolve(strings.TrimSuffix(glob, "/**"), false)
			if folder == "/" || folder == testHome || folder == "" || !inside(resolve(value, false), folder) {
				t.Fatalf("case %d: %q: %s reaches beyond the call's folder", i, value, text)
			}
			other := randomPath(rng)
			if g.Decide(fsRead(other)).Decision == Allow && !(inside(resolve(other, false), folder) && inside(resolve(other, true), folder)) {
				t.Fatalf("case %d: %s allows %q, outside its folder %s", i, text, other, folder)
			}
		}
	}
	if folders < propertyCases/1000 {
		t.Errorf("only %d folder rules derived: the property says little", folders)
	}
}

// outsidePaths are values a changed argument may take, most of them
// outside any folder a random path lies in.
var outsidePaths = []string{"~/.ssh/id_rsa", "/etc/passwd", "/elsewhere/x", "~/other/y", "../../z", `C:\Windows\x`}

// TestPropertyDerivedRulesHoldEveryPath: for random calls with several
// path arguments (and a word beside them), every rule A offers allows its
// own call, and a call that changes only one path argument to a file
// outside that argument's folder is not allowed by it: no offered rule
// leaves a path argument free.
func TestPropertyDerivedRulesHoldEveryPath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(30, 6))
	names := []string{"source", "destination", "path", "target", "from"}
	folders := 0
	for i := range propertyCases / 10 {
		args := map[string]any{"note": "likes tea"}
		for _, k := range rng.Perm(len(names))[:2+rng.IntN(2)] {
			args[names[k]] = randomPath(rng)
		}
		c := Call{Server: "fs", Tool: "move_file", Name: "fs__move_file", Args: args}
		for _, spec := range DeriveRules(c, testHome) {
			text := FormatCompact(spec)
			r, err := CompileRule(spec, "", "derived", testHome)
			if err != nil {
				t.Fatalf("case %d: %v: %s does not compile: %v", i, args, text, err)
			}
			g := NewGate(Policy{Mode: Ask, Home: testHome, Rules: []Rule{r}, Servers: []string{"fs"}})
			if v := g.Decide(c); v.Decision != Allow {
				t.Fatalf("case %d: %v: %s does not allow its own call: %s", i, args, text, v.Reason)
			}
			if len(spec.Args) < len(args) {
				folders++
			}
			for name := range args {
				if name == "note" {
					continue
				}
				for _, other := range outsidePaths {
					if glob, ok := spec.Args[name].(string); ok && strings.HasSuffix(glob, "/**") {
						folder := resolve(strings.TrimSuffix(glob, "/**"), false)
						if inside(resolve(other, false), folder) || inside(resolve(other, true), folder) {
							continue // not outside this argument's folder
						}
					} else if other == args[name] {
						continue
					}
					changed := maps.Clone(args)
					changed[name] = other
					if g.Decide(Call{Server: "fs", Tool: "move_file", Name: "fs__move_file", Args: changed}).Decision == Allow {
						t.Fatalf("case %d: %v: %s, offered for it, also allows %s=%q: it leaves %s free", i, args, text, name, other, name)
					}
				}
			}
		}
	}
	t.Logf("%d folder rules derived", folders)
	if folders < propertyCases/1000 {
		t.Errorf("only %d folder rules derived: the property says little", folders)
	}
}
