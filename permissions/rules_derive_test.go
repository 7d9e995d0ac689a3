package permissions

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestDeriveRules: the rules A can save for a call, narrowest-to-use
// first — the folder of each path argument, then the exact values — and
// never a folder glob that reaches beyond the call's folder.
func TestDeriveRules(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"a file in the project", map[string]any{"path": "~/src/proj/a.go", "tail": float64(20)},
			[]string{"fs__read_text_file(path=~/src/proj/**)", "fs__read_text_file(path=~/src/proj/a.go, tail=20)"}},
		{"judged by what it cleans to", map[string]any{"path": "/home/me/src/proj/x/../a.go"},
			[]string{"fs__read_text_file(path=~/src/proj/**)", "fs__read_text_file(path=~/src/proj/a.go)"}},
		{"a file at the root: exact only", map[string]any{"path": "/a.txt"}, []string{"fs__read_text_file(path=/a.txt)"}},
		{"a file in home: exact only", map[string]any{"path": "~/notes.txt"}, []string{"fs__read_text_file(path=~/notes.txt)"}},
		{"home through ..: exact only", map[string]any{"path": "~/src/../notes.txt"}, []string{"fs__read_text_file(path=~/notes.txt)"}},
		{"the current folder: exact only", map[string]any{"path": "./a.txt"}, []string{"fs__read_text_file(path=./a.txt)"}},
		{"a relative folder", map[string]any{"path": "src/a.go"}, []string{"fs__read_text_file(path=src/**)", "fs__read_text_file(path=src/a.go)"}},
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
