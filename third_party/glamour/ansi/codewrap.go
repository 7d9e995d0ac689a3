package ansi

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// A code block's lines wider than the block are wrapped here, before the
// block's indent is written, so that a continuation starts at the block's
// indent, not at the document's margin where the document's word wrap put
// it. The wrap keeps every character of the code but the spaces it breaks
// at that do not fit, and the colour codes where they were: the indent
// writer restores the colour after the indent of a continuation.

// codeTooWide reports whether a line of code is wider than width cells.
func codeTooWide(code string, width int) bool {
	for code != "" {
		line := code
		if i := strings.IndexByte(code, '\n'); i >= 0 {
			line, code = code[:i], code[i+1:]
		} else {
			code = ""
		}
		// A cell takes at least a byte.
		if len(line) > width && ansi.StringWidth(line) > width {
			return true
		}
	}
	return false
}

// wrapCode wraps each line of s, highlighted code, to width cells: after
// the last space that fits when the row has text before it, otherwise
// before the first character that does not fit. The spaces that would
// start a continuation are left out. Escape sequences take no cell and
// stay where they are. Linear in the length of s.
func wrapCode(s string, width int) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/max(width, 1) + 16)
	var row []byte
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			wrapCodeLine(&b, row[:0], s, width)
			return b.String()
		}
		row = wrapCodeLine(&b, row[:0], s[:i], width)
		b.WriteByte('\n')
		s = s[i+1:]
	}
}

// wrapCodeLine writes line wrapped to width cells to b; row is a buffer
// for the row being laid out.
func wrapCodeLine(b *strings.Builder, row []byte, line string, width int) []byte {
	cells := 0    // the width of row
	brk := -1     // where row may end: after a space with text before it
	brkCells := 0 // the width of row[:brk]
	text := false // row has a character that is not a space
	cont := false // row continues a wrapped line
	for i := 0; i < len(line); {
		if line[i] == '\x1b' {
			n := escapeLen(line[i:])
			row = append(row, line[i:i+n]...)
			i += n
			continue
		}
		c, w := codeCluster(line[i:])
		i += len(c)
		space := c == " "
		if space && cont && !text {
			continue // a continuation starts with the code, not a space
		}
		if cells+w > width && cells > 0 {
			switch {
			case space:
				// Full: the row ends here; the space is left out.
				b.Write(row)
				b.WriteByte('\n')
				row, cells, brk, text, cont = row[:0], 0, -1, false, true
				continue
			case brk >= 0:
				b.Write(row[:brk])
				b.WriteByte('\n')
				row = append(row[:0], row[brk:]...)
				cells -= brkCells
			default:
				b.Write(row)
				b.WriteByte('\n')
				row, cells = row[:0], 0
			}
			// What is carried over has no space: it came after the last.
			brk, text, cont = -1, cells > 0, true
			if cells+w > width && text {
				b.Write(row)
				b.WriteByte('\n')
				row, cells, text = row[:0], 0, false
			}
		}
		row = append(row, c...)
		cells += w
		if space {
			if text {
				brk, brkCells = len(row), cells
			}
		} else {
			text = true
		}
	}
	b.Write(row)
	return row
}

// codeCluster is the first grapheme cluster of s and its width.
func codeCluster(s string) (string, int) {
	if c := s[0]; c < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf) {
		if c < ' ' || c == 0x7f {
			return s[:1], 0
		}
		return s[:1], 1
	}
	c, _, w, _ := uniseg.FirstGraphemeClusterInString(s, -1)
	if c == "" {
		_, n := utf8.DecodeRuneInString(s)
		return s[:n], 1
	}
	return c, w
}

// escapeLen is the length of the escape sequence s starts with: a CSI
// sequence up to its final byte, an OSC string up to BEL or ST, or ESC and
// the byte after it.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
		}
		return len(s)
	case ']':
		for j := 2; j < len(s); j++ {
			if s[j] == '\a' {
				return j + 1
			}
			if s[j] == '\x1b' && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	}
	return 2
}
