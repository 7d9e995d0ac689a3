package lexers

import (
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// TestLazyMatchIsEager: before any load, Match, and Get of a name that is
// no lexer's name or alias (a fence's language half streamed, or one
// chroma does not know), find what a registry built at once finds
// (primary patterns before alias ones, priorities, ignored suffixes, a
// lexer given to Register) while parsing only the XML lexers with a
// pattern that matches; after the load they still do.
func TestLazyMatchIsEager(t *testing.T) {
	want := eager(t)
	x := &xmlLexers{parsed: map[string]chroma.Lexer{}}
	got := chroma.NewLazyLexerRegistry(x)
	for _, l := range standIns() {
		got.Register(l)
	}
	files := []string{"a.go", "Makefile", "Makefile.in", "x.c", "x.h", "y.standin", "z.unknown", "dir/script.sh",
		"main.cpp", "x.as", "page.html", "notes.txt", "config.h.in", "Dockerfile", "data.json", "a.ts", "", "*"}
	names := []string{"jsonc", "jav", "javas", "gotmpl", "h", "mk", "txt", "cpp", "standin", "hs", "zzz", "ts", "yml", "console"}
	compare := func(when string) {
		t.Helper()
		for _, f := range files {
			if g, w := describe(got.Match(f)), describe(want.Match(f)); g != w {
				t.Errorf("%s: Match(%q) = %s, want %s", when, f, g, w)
			}
		}
		for _, n := range names {
			if g, w := describe(got.Get(n)), describe(want.Get(n)); g != w {
				t.Errorf("%s: Get(%q) = %s, want %s", when, n, g, w)
			}
		}
	}
	compare("before the load")
	if len(got.Lexers) != 0 {
		t.Errorf("Match loaded the registry: %d lexers", len(got.Lexers))
	}
	if n := len(x.parsed); n > 40 {
		t.Errorf("Match parsed %d XML lexers of %d", n, len(xmlGlobs))
	}
	t.Logf("%d of %d XML lexers parsed", len(x.parsed), len(xmlGlobs))
	got.Names(false) // loads all
	compare("after the load")
}
