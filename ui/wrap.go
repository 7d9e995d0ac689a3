package ui

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// greedyWrap word-wraps one line of sanitized text (no newline, no control
// character) to w cells, and returns the rows and the offset in s where each
// starts. A word that does not fit on the row goes to the next one, the
// spaces before it dropped; a word wider than w is cut into rows of w
// cells. Wrapping goes left to right and never looks back, so text added
// to s changes its last row only, and wrapping s[starts[i]:] gives rows[i:]:
// a growing line is wrapped again from its last rows only (see tailWrap).
func greedyWrap(s string, w int) (rows []string, starts []int) {
	w = max(w, 1)
	rowStart, rowEnd, rowW := 0, 0, 0 // the current row is s[rowStart:rowEnd]
	emit := func() {
		rows = append(rows, s[rowStart:rowEnd])
		starts = append(starts, rowStart)
	}
	for i := 0; i < len(s); {
		// The spaces, then the word after them.
		j, sw := i, 0
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !isWrapSpace(r) {
				break
			}
			sw += runeCells(s[j : j+n])
			j += n
		}
		k, ww := j, 0
		for k < len(s) {
			c, cw := nextCluster(s[k:])
			if r, _ := utf8.DecodeRuneInString(c); isWrapSpace(r) {
				break
			}
			k += len(c)
			ww += cw
		}
		switch {
		case k == j: // spaces at the end: kept if they fit
			if rowW+sw <= w {
				rowEnd, rowW = j, rowW+sw
			}
		case rowW+sw+ww <= w:
			rowEnd, rowW = k, rowW+sw+ww
		default:
			if rowEnd > rowStart {
				emit()
			}
			rowStart, rowEnd, rowW = j, j, 0
			// Cut the word into rows of w cells; the last piece stays
			// the current row.
			for p := j; p < k; {
				c, cw := nextCluster(s[p:])
				if rowW+cw > w && rowEnd > rowStart {
					emit()
					rowStart, rowW = p, 0
				}
				p += len(c)
				rowEnd, rowW = p, rowW+cw
			}
		}
		i = k
	}
	if rowEnd > rowStart || len(rows) == 0 {
		emit()
	}
	return rows, starts
}

// nextCluster returns the first grapheme cluster of s and its width.
func nextCluster(s string) (string, int) {
	if c := s[0]; c < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf) {
		return s[:1], 1 // printable ASCII not followed by a combining mark
	}
	c, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
	if c == "" {
		_, n := utf8.DecodeRuneInString(s)
		return s[:n], 1
	}
	return c, w
}

// runeCells is the width of one space character.
func runeCells(r string) int {
	if r == " " {
		return 1
	}
	return ansi.StringWidth(r)
}
