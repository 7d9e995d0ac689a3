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
// way at its "**" segments into groups of segments, and the path is read
// in place, never split.

// matchSegs matches a path glob's segments p against the path s, whose
// segments are its runs between '/' (as strings.Split(s, "/") has them;
// s is never split, which for a long path would cost more than the
// matching): "**" spans any number of segments (none included); every
// other segment is a glob matched by wild. A segment is found by where it
// starts in s; len(s)+1 is past the last one.
func matchSegs(p []string, s string) bool { return matchSegsIn(p, s, nil) }

// matchSegsIn is matchSegs with memo, which remembers for the path s the
// literal segments found absent, across the rules matched against it.
func matchSegsIn(p []string, s string, memo *absentWords) bool {
	i := doubleStar(p)
	if i < 0 {
		end, ok := segsFrom(p, s, 0)
		return ok && end > len(s)
	}
	pos, ok := segsFrom(p[:i], s, 0)
	if !ok {
		return false
	}
	p = p[i+1:]
	// The last group ends the path: it is tried first, as it costs no
	// search.
	j := len(p) - 1
	for j >= 0 && p[j] != "**" {
		j--
	}
	tail := p[j+1:]
	limit, ok := lastSegs(s, len(tail))
	if !ok || limit < pos {
		return false
	}
	if _, ok := segsFrom(tail, s, limit); !ok {
		return false
	}
	for p = p[:max(j, 0)]; len(p) > 0; {
		i = doubleStar(p)
		if i < 0 {
			i = len(p)
		}
		end, ok := findSegs(p[:i], s, pos, memo)
		if !ok || end > limit {
			return false
		}
		pos, p = end, p[min(i+1, len(p)):]
	}
	return true
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

// segsFrom matches the segment globs g against the segments of s from
// the one starting at pos on, one each: it reports whether they match
// and where the segment after them starts.
func segsFrom(g []string, s string, pos int) (int, bool) {
	for _, glob := range g {
		if pos > len(s) {
			return 0, false
		}
		seg := s[pos:]
		if k := strings.IndexByte(seg, '/'); k >= 0 {
			seg = seg[:k]
		}
		if !wild(glob, seg) {
			return 0, false
		}
		pos += len(seg) + 1
	}
	return pos, true
}

// lastSegs is where the last n segments of s start (len(s)+1 for none);
// false when s has fewer.
func lastSegs(s string, n int) (int, bool) {
	start := len(s) + 1
	for range n {
		if start == 0 {
			return 0, false
		}
		start = strings.LastIndexByte(s[:start-1], '/') + 1
	}
	return start, true
}

// findSegs finds where the group of segment globs g first matches the
// segments of s from the one starting at pos on, and returns where the
// segment after it starts. A group holding a segment without '*' or '?'
// is looked for where that segment is, found with strings.Index.
func findSegs(g []string, s string, pos int, memo *absentWords) (int, bool) {
	if len(g) == 0 {
		return pos, true // a/**/**/b: the group between is empty
	}
	lit := -1
	for k, glob := range g {
		if glob != "" && !strings.ContainsAny(glob, "*?") {
			lit = k
			break
		}
	}
	if lit < 0 {
		for at := pos; at <= len(s); {
			if end, ok := segsFrom(g, s, at); ok {
				return end, true
			}
			k := strings.IndexByte(s[at:], '/')
			if k < 0 {
				break
			}
			at += k + 1
		}
		return 0, false
	}
	word := g[lit]
	for from := pos; from <= len(s); {
		if memo.absent(word, from) {
			return 0, false
		}
		q := strings.Index(s[from:], word)
		if q < 0 {
			memo.note(word, from)
			return 0, false
		}
		q += from
		from = q + 1
		if q > 0 && s[q-1] != '/' || q+len(word) < len(s) && s[q+len(word)] != '/' {
			continue // not a whole segment
		}
		at, ok := segsBefore(s, q, lit)
		if !ok || at < pos {
			continue
		}
		if end, ok := segsFrom(g, s, at); ok {
			return end, true
		}
	}
	return 0, false
}

// absentWords remembers, for one path, from where each word looked for in
// it is known to be absent: many rules with no folder of their own look
// for the same segment (".git", "hooks") in a long path, and each would
// read all of it again to find it missing.
type absentWords struct {
	from map[string]int
}

// longPath is the length from which a path's absent words are
// remembered: below it a search costs less than remembering it.
const longPath = 4096

// absent reports whether word is known absent from s[from:]. A nil memo
// knows nothing.
func (a *absentWords) absent(word string, from int) bool {
	if a == nil {
		return false
	}
	f, ok := a.from[word]
	return ok && f <= from
}

// note remembers that word is absent from s[from:].
func (a *absentWords) note(word string, from int) {
	if a == nil {
		return
	}
	if a.from == nil {
		a.from = map[string]int{}
	}
	if f, ok := a.from[word]; !ok || from < f {
		a.from[word] = from
	}
}

// segsBefore is where the segment n segments before the one starting at
// q starts; false when there are fewer.
func segsBefore(s string, q, n int) (int, bool) {
	for range n {
		if q == 0 {
			return 0, false
		}
		q = strings.LastIndexByte(s[:q-1], '/') + 1
	}
	return q, true
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
