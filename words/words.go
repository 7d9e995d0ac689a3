// Package words holds the plain helpers that name what a person wrote
// wrong, shared by the config loader and the themes: Suggest (the one rule
// of every "did you mean") and JSONKind (a JSON value's type, named). It
// imports only the standard library, so config reads its files without
// pulling in the terminal's styling.
package words

import (
	"bytes"
	"strings"
)

// Suggest returns the entry of valid closest to k (case-insensitive, with
// transpositions), or "" when none is close enough to be a typo: one edit
// for words under five letters, two for longer ones. Words under three
// letters only match by case, since one edit turns any of them into
// another. The config loader and the themes use it, so that every "did you
// mean" of latch follows one rule.
func Suggest(k string, valid []string) string {
	limit := 1
	switch {
	case len(k) < 3:
		limit = 0
	case len(k) >= 5:
		limit = 2
	}
	best, bestDist := "", limit+1
	for _, v := range valid {
		if d := Distance(strings.ToLower(k), strings.ToLower(v)); d < bestDist {
			best, bestDist = v, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance of a and b, by
// runes: the edits from one to the other, a swap of two neighbours
// counting as one (--mdoe is one from --mode).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// JSONKind names the JSON type of a valid raw value: "string", "object",
// "array", "boolean", "null", "number", or "nothing" when it is empty.
// The config loader and the themes use it.
func JSONKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
