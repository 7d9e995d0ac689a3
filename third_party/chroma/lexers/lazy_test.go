package lexers

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// standIns are lexers registered before the load, as the package's own
// Go lexers are: one with an XML lexer's name (it replaces it), one whose
// alias is an XML lexer's alias, one new.
func standIns() []chroma.Lexer {
	mk := func(name string, aliases ...string) chroma.Lexer {
		return chroma.MustNewLexer(&chroma.Config{Name: name, Aliases: aliases, Filenames: []string{"*.standin"}}, PlaintextRules)
	}
	return []chroma.Lexer{mk("HTML", "htm-standin"), mk("Standin Python", "py"), mk("Standin", "standin")}
}

// eager is the registry as the unpatched package builds it: every XML
// lexer at once, in file order, then the others.
func eager(t *testing.T) *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		reg.Register(chroma.MustNewXMLLexer(embedded, path))
	}
	for _, l := range standIns() {
		reg.Register(l)
	}
	return reg
}

func lazy() *chroma.LexerRegistry {
	reg := chroma.NewLazyLexerRegistry(&xmlLexers{parsed: map[string]chroma.Lexer{}})
	for _, l := range standIns() {
		reg.Register(l)
	}
	return reg
}

// describe names what a lookup found, for comparing two registries.
func describe(l chroma.Lexer) string {
	if l == nil {
		return "<nil>"
	}
	c := l.Config()
	return fmt.Sprintf("%s %v %v", c.Name, c.Aliases, c.Filenames)
}

// TestLazyGetIsEager: every name and alias (as given, lower-cased and
// upper-cased), and a few file names, find the same lexer in a lazy
// registry as in one built at once; a lookup by a name or alias parses
// one file, not all.
func TestLazyGetIsEager(t *testing.T) {
	want := eager(t)
	keys := want.Names(true)
	keys = append(keys, "", "go", "foo.py", "x.standin", "Makefile", "no such lexer", "C++", "htm-standin")
	for _, k := range keys {
		for _, key := range []string{k, strings.ToLower(k), strings.ToUpper(k)} {
			got := lazy()
			if g, w := describe(got.Get(key)), describe(want.Get(key)); g != w {
				t.Errorf("Get(%q) = %s, want %s", key, g, w)
			}
		}
	}
	x := &xmlLexers{parsed: map[string]chroma.Lexer{}}
	reg := chroma.NewLazyLexerRegistry(x)
	if reg.Get("python") == nil || reg.Get("Bash") == nil || len(x.parsed) != 2 {
		t.Errorf("two lookups by name parsed %d files, want 2", len(x.parsed))
	}
}

// TestLazyAllIsEager: once loaded, a lazy registry holds the lexers of an
// eager one in the same order (what Match and Analyse pick among equals
// depends on it), and answers the lookups that need all of them alike.
func TestLazyAllIsEager(t *testing.T) {
	want := eager(t)
	got := lazy()
	got.Get("python") // one parsed before the load: the load must reuse it
	if g, w := strings.Join(got.Names(true), ","), strings.Join(want.Names(true), ","); g != w {
		t.Errorf("Names differ:\n%s\n%s", g, w)
	}
	if len(got.Lexers) != len(want.Lexers) {
		t.Fatalf("%d lexers, want %d", len(got.Lexers), len(want.Lexers))
	}
	for i := range want.Lexers {
		if g, w := describe(got.Lexers[i]), describe(want.Lexers[i]); g != w {
			t.Errorf("lexer %d: %s, want %s", i, g, w)
		}
	}
	if got.Get("python") != got.Get("py3") {
		t.Error("the lexer parsed before the load is not the one registered")
	}
	for _, f := range []string{"a.go", "Makefile", "x.c", "y.standin", "z.unknown"} {
		if g, w := describe(got.Match(f)), describe(want.Match(f)); g != w {
			t.Errorf("Match(%q) = %s, want %s", f, g, w)
		}
	}
	for _, text := range []string{"#!/bin/bash\necho hi\n", "<?php echo 1; ?>", "package main\n"} {
		if g, w := describe(got.Analyse(text)), describe(want.Analyse(text)); g != w {
			t.Errorf("Analyse(%q) = %s, want %s", text, g, w)
		}
	}
}

// TestLazyConcurrent: lookups by name and the load at once (go test
// -race).
func TestLazyConcurrent(t *testing.T) {
	reg := lazy()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, k := range []string{"python", "c", "bash", "", "rust", "x.c"} {
				if l := reg.Get(k); k != "" && l == nil {
					t.Errorf("Get(%q) = nil", k)
				}
			}
			reg.Match("x.py")
		}()
	}
	wg.Wait()
}
