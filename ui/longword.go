package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// longWordMin is the width (cells) from which breakLongWords breaks a word
// into pieces, when the wrap width is below it. glamour's word wrapper
// (muesli/reflow) measures the whole word again for every character added
// to it, so a word costs the square of its length: a 100 KB base64 blob
// took minutes. Words up to this width (URLs, paths) are left whole, so
// that links still parse; beyond it a word is broken into pieces of the
// wrap width, which glamour puts one to a line, as it would have shown
// the word anyway, at a cost linear in its length.
const longWordMin = 512

// breakLongWords returns the markdown md with every word wider than
// max(width, longWordMin) cells broken into pieces width cells wide,
// separated by spaces. Fenced code and indented lines (which may be code)
// are left alone: code is not changed here (glamour wraps a code block's
// lines itself, in time linear in their length).
func breakLongWords(md string, width int) string {
	limit := max(width, longWordMin)
	if width < 1 || len(md) <= limit {
		return md // no word can be wider than its bytes
	}
	var b strings.Builder
	fence := "" // the open fence's marker, inside fenced code
	changed := false
	for rest := md; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		body := strings.TrimRight(line, "\r\n")
		indent := len(body) - len(strings.TrimLeft(body, " "))
		trimmed := body[indent:]
		switch {
		case fence != "":
			if indent < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
		case indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
			fence = trimmed[:n]
		case indent >= 4 || strings.HasPrefix(body, "\t") || len(body) <= limit:
		default:
			if broken, ok := breakLine(line, width, limit); ok {
				if !changed {
					b.Grow(len(md) + len(md)/width + 16)
					b.WriteString(md[:len(md)-len(rest)-len(line)])
					changed = true
				}
				b.WriteString(broken)
				continue
			}
		}
		if changed {
			b.WriteString(line)
		}
	}
	if !changed {
		return md
	}
	return b.String()
}

// breakLine breaks the words of line wider than limit cells into pieces
// width cells wide. ok is false when no word is that wide.
func breakLine(line string, width, limit int) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(line); {
		// A word: the run up to the next space.
		j := i
		for j < len(line) && !isBreakSpace(line[j]) {
			j++
		}
		word := line[i:j]
		if len(word) > limit && ansi.StringWidth(word) > limit {
			if !changed {
				b.Grow(len(line) + len(line)/width + 16)
				b.WriteString(line[:i])
				changed = true
			}
			writePieces(&b, word, width)
		} else if changed {
			b.WriteString(word)
		}
		// The spaces after it.
		k := j
		for k < len(line) && isBreakSpace(line[k]) {
			k++
		}
		if changed {
			b.WriteString(line[j:k])
		}
		i = k
	}
	return b.String(), changed
}

func isBreakSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// writePieces writes word as pieces of width cells, separated by spaces. A
// piece never ends in a backslash, which would escape the space after it.
func writePieces(b *strings.Builder, word string, width int) {
	w := 0
	for i := 0; i < len(word); {
		var n, cw int
		if c := word[i]; c < utf8.RuneSelf {
			n, cw = 1, 1
		} else {
			g, gw := ansi.FirstGraphemeCluster(word[i:], ansi.GraphemeWidth)
			n, cw = max(len(g), 1), gw
		}
		if w > 0 && w+cw > width && word[i-1] != '\\' {
			b.WriteByte(' ')
			w = 0
		}
		b.WriteString(word[i : i+n])
		w += cw
		i += n
	}
}
