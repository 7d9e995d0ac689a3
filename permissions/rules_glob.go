package permissions

import (
	"strings"
	"unicode/utf8"
)

// Glob matching whose cost grows linearly with the value's length,
// whatever the pattern: a value is never matched again from an earlier
// place. A value is a run of characters: each a UTF-8 encoded rune, or a
// byte that starts none (an invalid byte is a character of its own).
//
// A pattern is cut at its stars into chunks (literal characters and '?').
// Between two stars anything may be, so a chunk in the middle is found
// where it first appears after the one before it: every later place would
// leave the chunks after it less room, never more. The first chunk must
// be at the start, the last at the end. A path pattern is cut the same
// way at its "**" segments into groups of segments.

// matchSegs matches path segments: "**" spans any number of segments
// (none included); every other segment is a glob matched by wild.
func matchSegs(p, s []string) bool {
	i := doubleStar(p)
	if i < 0 {
		return len(p) == len(s) && segsAt(p, s)
	}
	if len(s) < i || !segsAt(p[:i], s[:i]) {
		return false
	}
	p, s = p[i+1:], s[i:]
	for {
		i = doubleStar(p)
		if i < 0 { // the last group ends the path
			return len(s) >= len(p) && segsAt(p, s[len(s)-len(p):])
		}
		at := findSegs(p[:i], s)
		if at < 0 {
			return false
		}
		p, s = p[i+1:], s[at+i:]
	}
}

// doubleStar is the index of the first "**" of p, -1 when none.
func doubleStar(p []string) int {
	for i, seg := range p {
		if seg == "**" {
			return i
		}
	}
	return -1
}

// segsAt reports whether every segment of s matches the glob of p at the
// same place; s is as long as p.
func segsAt(p, s []string) bool {
	for i := range p {
		if !wild(p[i], s[i]) {
			return false
		}
	}
	return true
}

// findSegs is where the group of segment globs g first matches in s, -1
// when nowhere. A group holding a segment without '*' or '?' is looked
// for only where that segment is.
func findSegs(g, s []string) int {
	if len(g) == 0 {
		return 0
	}
	lit := -1
	for k, seg := range g {
		if !strings.ContainsAny(seg, "*?") {
			lit = k
			break
		}
	}
	for at := 0; at+len(g) <= len(s); at++ {
		if lit >= 0 && s[at+lit] != g[lit] {
			continue
		}
		if segsAt(g, s[at:at+len(g)]) {
			return at
		}
	}
	return -1
}

// wild matches a glob of '*' (any run of characters) and '?' (one
// character) against the whole of s; every other character is literal.
func wild(p, s string) bool {
	star := strings.IndexByte(p, '*')
	if star < 0 {
		n, ok := chunkAt(p, s)
		return ok && n == len(s)
	}
	n, ok := chunkAt(p[:star], s)
	if !ok {
		return false
	}
	p, s = p[star+1:], s[n:]
	for {
		star = strings.IndexByte(p, '*')
		if star < 0 {
			return chunkEnds(p, s)
		}
		if star > 0 {
			at, n := findChunk(p[:star], s)
			if at < 0 {
				return false
			}
			s = s[at+n:]
		}
		p = p[star+1:]
	}
}

// chunkAt matches the chunk c (literal bytes and '?', one character each)
// at the start of s: it reports whether it does and how many bytes of s
// it takes.
func chunkAt(c, s string) (int, bool) {
	n := 0
	for i := 0; i < len(c); i++ {
		if n >= len(s) {
			return 0, false
		}
		if c[i] == '?' {
			_, w := utf8.DecodeRuneInString(s[n:])
			n += w
			continue
		}
		if s[n] != c[i] {
			return 0, false
		}
		n++
	}
	return n, true
}

// findChunk is where the chunk c first matches in s, at the start of a
// character, and how many bytes it takes; -1 when nowhere. The literal
// start of c (before its first '?') is looked for with strings.Index.
func findChunk(c, s string) (int, int) {
	lead := c
	if q := strings.IndexByte(c, '?'); q >= 0 {
		lead = c[:q]
	}
	for from := 0; from <= len(s); {
		at := from
		if lead != "" {
			i := strings.Index(s[from:], lead)
			if i < 0 {
				return -1, 0
			}
			at += i
		}
		if charStart(s, at) {
			if n, ok := chunkAt(c, s[at:]); ok {
				return at, n
			}
		}
		from = at + 1
	}
	return -1, 0
}

// chunkEnds reports whether the chunk c matches the end of s, starting
// at the start of a character. c takes at most 4 bytes a character, so
// only the last 4·len(c) places are tried.
func chunkEnds(c, s string) bool {
	for at := max(len(s)-utf8.UTFMax*len(c), 0); at+len(c) <= len(s); at++ {
		if !charStart(s, at) {
			continue
		}
		if n, ok := chunkAt(c, s[at:]); ok && at+n == len(s) {
			return true
		}
	}
	return false
}

// charStart reports whether at is the start of a character of s (or its
// end): not within a rune's encoding that starts before it.
func charStart(s string, at int) bool {
	for k := 1; k < utf8.UTFMax && k <= at; k++ {
		if utf8.RuneStart(s[at-k]) {
			_, w := utf8.DecodeRuneInString(s[at-k:])
			return w <= k
		}
	}
	return true
}
