package permissions

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
	"unicode/utf8"
)

// oldMatchSegs is matchSegs as it was before the matchers were made
// linear (it recursed at every "**"): the oracle the new one must agree
// with.
func oldMatchSegs(p, s []string) bool {
	for len(p) > 0 {
		if p[0] == "**" {
			p = p[1:]
			if len(p) == 0 {
				return true
			}
			for i := range len(s) + 1 {
				if oldMatchSegs(p, s[i:]) {
					return true
				}
			}
			return false
		}
		if len(s) == 0 || !oldWild(p[0], s[0]) {
			return false
		}
		p, s = p[1:], s[1:]
	}
	return len(s) == 0
}

// oldWild is wild as it was (it went back to the last '*' on a
// mismatch). Its '*' could stop within a rune's encoding, so that a '?'
// after it took one byte of it: "*??" matched "€". On values of ASCII it
// is right.
func oldWild(p, s string) bool {
	px, sx := 0, 0
	nextPx, nextSx := 0, 0
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					_, n := utf8.DecodeRuneInString(s[sx:])
					px++
					sx += n
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if 0 < nextSx && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}

// refWild is the definition of a glob, tried every way: '*' any run of
// characters, '?' one character (a rune, or a byte that starts none),
// anything else itself.
func refWild(p, s string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '*':
		for i := 0; ; {
			if refWild(p[1:], s[i:]) {
				return true
			}
			if i == len(s) {
				return false
			}
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
	case '?':
		if s == "" {
			return false
		}
		_, w := utf8.DecodeRuneInString(s)
		return refWild(p[1:], s[w:])
	}
	return s != "" && s[0] == p[0] && refWild(p[1:], s[1:])
}

// refSegs is the definition of a path glob's segments, tried every way,
// with refWild for a segment.
func refSegs(p, s []string) bool {
	if len(p) == 0 {
		return len(s) == 0
	}
	if p[0] == "**" {
		for i := range len(s) + 1 {
			if refSegs(p[1:], s[i:]) {
				return true
			}
		}
		return false
	}
	return len(s) > 0 && refWild(p[0], s[0]) && refSegs(p[1:], s[1:])
}

// randomFrom is a string of up to n pieces of alphabet.
func randomFrom(rng *rand.Rand, alphabet []string, n int) string {
	var b strings.Builder
	for range rng.IntN(n + 1) {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

var (
	asciiGlob  = []string{"a", "b", "*", "?", "*", "ab"}
	asciiValue = []string{"a", "b", "ab", "c"}
	// utf8Glob and utf8Value hold runes of 2, 3 and 4 bytes, whose bytes
	// a '?' or a '*' must never split.
	utf8Glob  = []string{"a", "é", "€", "😀", "*", "?", "?", "*"}
	utf8Value = []string{"a", "é", "€", "😀", "\xe2\x82", "\xa9"}
)

// TestPropertyWildAgrees: over random globs and values, wild is the
// definition of a glob (refWild), and the old matcher where it was right
// (values of ASCII).
func TestPropertyWildAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 30))
	for range 200_000 {
		p, s := randomFrom(rng, asciiGlob, 6), randomFrom(rng, asciiValue, 8)
		if got, want := wild(p, s), oldWild(p, s); got != want {
			t.Fatalf("wild(%q, %q) = %v, the old matcher says %v", p, s, got, want)
		}
		p, s = randomFrom(rng, utf8Glob, 6), randomFrom(rng, utf8Value, 6)
		if got, want := wild(p, s), refWild(p, s); got != want {
			t.Fatalf("wild(%q, %q) = %v, want %v", p, s, got, want)
		}
	}
}

// TestWildWholeCharacters: a '?' is one character, never a byte of one,
// however the stars before it fall (the old matcher's "*??" matched the
// one character "€").
func TestWildWholeCharacters(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*??", "€", false}, {"*?", "€", true}, {"*??", "a€", true}, {"?", "\xe2\x82", false},
		{"??", "\xe2\x82", true}, {"*\xa9", "é", false}, {"*\xa9", "a\xa9", true}, {"x*€", "x€", true},
	} {
		if got := wild(c.p, c.s); got != c.want {
			t.Errorf("wild(%q, %q) = %v, want %v", c.p, c.s, got, c.want)
		}
	}
}

// TestPropertyMatchSegsAgrees: over random path globs of up to 5 "**"
// and random paths, matchSegs (which reads the path in place) agrees with
// the definition on its segments (refSegs) and with the old matcher.
func TestPropertyMatchSegsAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 30))
	segGlobs := []string{"**", "**", "a", "b", "*", "a*", "?", ".git", "*b", "é?"}
	segValues := []string{"a", "b", "ab", ".git", "ba", "éa", "é€", ""}
	for range 100_000 {
		var p, s []string
		stars := 0
		for range rng.IntN(7) {
			g := segGlobs[rng.IntN(len(segGlobs))]
			if g == "**" && stars == 5 {
				continue
			}
			stars += strings.Count(g, "**")
			p = append(p, g)
		}
		for range 1 + rng.IntN(8) { // a path has a segment at least: "" is one
			s = append(s, segValues[rng.IntN(len(segValues))])
		}
		got := matchSegs(p, strings.Join(s, "/"))
		if want := refSegs(p, s); got != want {
			t.Fatalf("matchSegs(%q, %q) = %v, want %v", p, s, got, want)
		}
		if want := oldMatchSegs(p, s); got != want {
			t.Fatalf("matchSegs(%q, %q) = %v, the old matcher says %v", p, s, got, want)
		}
	}
}

// FuzzWild: wild agrees with the definition of a glob on any glob and
// value (kept short: the definition tries every way).
func FuzzWild(f *testing.F) {
	for _, s := range [][2]string{{"*a*b?", "xaxb€"}, {"*??", "€"}, {"?*é", "\xe2é"}, {"a*", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 12 || len(s) > 24 || !utf8.ValidString(p) {
			return // a glob of a rule is text; the definition is exponential
		}
		if got, want := wild(p, s), refWild(p, s); got != want {
			t.Fatalf("wild(%q, %q) = %v, want %v", p, s, got, want)
		}
	})
}

// TestDoubleStarsBound: a pattern may have 16 "**" segments, not 17.
func TestDoubleStarsBound(t *testing.T) {
	if _, err := compileGlob("/a"+strings.Repeat("/**/x", 16), testHome); err != nil {
		t.Errorf("16 **: %v", err)
	}
	if _, err := compileGlob("/a"+strings.Repeat("/**/x", 17), testHome); err == nil || !strings.Contains(err.Error(), "at most 16") {
		t.Errorf("17 **: %v", err)
	}
}

// TestDecideHugePathDoubleStars: a 450 KB path of ".git" folders, with or
// without a "hooks" folder at its very end, against rules of up to 5
// "**", is decided as the rules say. (The old matcher tried every way
// to place each "**": the path without "hooks" took it 25 to 50 s with 2
// of them, and with 5 it never ended.)
func TestDecideHugePathDoubleStars(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, end string
		want         Decision
	}{
		{"~/**/.git/**/hooks/**", "/hooks/pre-commit", Deny},
		{"~/**/.git/**/hooks/**", "/hooks", Deny}, // DIR/** is DIR too
		{"~/**/.git/**/hooks/**", "/hook/pre-commit", Allow},
		{"~/**/w/**/.git/**/z/**/hooks/**/*.sample", "/hooks/pre-commit.sample", Deny},
		{"~/**/w/**/.git/**/z/**/hooks/**/*.sample", "/hooks/pre-commit", Allow},
		{"~/**/w/**/.git/**/z/**/hooks/**/*.sample", "/hook/pre-commit.sample", Allow},
	} {
		g := NewGate(Policy{Mode: Auto, Home: testHome, Servers: []string{"fs"},
			Rules: []Rule{mustRule(t, "fs", "*", map[string]any{"path": c.pattern}, "deny")}})
		path := hugePath("~/src/proj", 450<<10) + c.end
		v := g.Decide(Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file", Args: map[string]any{"path": path}})
		if v.Decision != c.want {
			t.Errorf("%s against a path ending %q: %s (%s)", c.pattern, c.end, v.Decision, v.Reason)
		}
	}
}

// FuzzMatchSegs: matchSegs agrees with the definition of a path glob on
// any pattern and path (kept short: the definition tries every way).
func FuzzMatchSegs(f *testing.F) {
	for _, s := range [][2]string{{"/a/**/.git/**/hooks/**", "/a/b/.git/c/hooks"}, {"**/x/**/y", "x/y"}, {"a/**/**", "a/"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 24 || len(path) > 32 || !utf8.ValidString(pattern) {
			return
		}
		p := strings.Split(pattern, "/")
		if got, want := matchSegs(p, path), refSegs(p, strings.Split(path, "/")); got != want {
			t.Fatalf("matchSegs(%q, %q) = %v, want %v", p, path, got, want)
		}
	})
}

// TestPropertyCleanPath: cleanPath is path.Clean, on random paths of
// slashes, dots and names.
func TestPropertyCleanPath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 30))
	parts := []string{"/", "/", ".", "..", "a", "b.c", "~", `\`, "é"}
	for range 200_000 {
		s := randomFrom(rng, parts, 8)
		if got, want := cleanPath(s), path.Clean(s); got != want {
			t.Fatalf("cleanPath(%q) = %q, path.Clean says %q", s, got, want)
		}
	}
}

// TestPropertyAbsentWordsAgree: a long path matched against many
// patterns with one memo of the words found absent in it decides each
// pattern as matching it alone does, in any order.
func TestPropertyAbsentWordsAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 2))
	segGlobs := []string{"**", "**", "a", "b", "*", "a*", "?", ".git", "hooks", "x1", "x2", "*b"}
	segValues := []string{"a", "b", "ab", ".git", "ba", "x1", "z"}
	for range 200 {
		var s []string
		for n := 0; n < longPath; n += 3 {
			s = append(s, segValues[rng.IntN(len(segValues))])
		}
		path := strings.Join(s, "/")
		memo := &absentWords{}
		for range 200 {
			var p []string
			for range 1 + rng.IntN(7) {
				p = append(p, segGlobs[rng.IntN(len(segGlobs))])
			}
			if got, want := matchSegsIn(p, path, memo), matchSegs(p, path); got != want {
				t.Fatalf("with the memo, %q on a %d-byte path = %v, alone %v", p, len(path), got, want)
			}
		}
	}
}
