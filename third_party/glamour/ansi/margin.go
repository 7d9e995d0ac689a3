package ansi

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"github.com/muesli/termenv"
)

// MarginWriter is a Writer that applies indentation and padding around
// whatever you write to it.
//
// latch: glamour v1.0.0 piped the text through reflow's indent and padding
// writers, which style every pad cell and indent token on its own and
// handle the text a rune at a time with an allocation each. This writer
// does what that pipe did, byte for byte (margin_test.go compares them),
// in one pass: the pad cell and the indent token are styled once, on
// first use, and what it writes goes out in one Write per call.
type MarginWriter struct {
	w       io.Writer
	out     []byte
	width   int // pad each line to this many cells
	indent  int // indent each line by this many tokens
	profile termenv.Profile
	rules   StylePrimitive // the pad cell's style
	stack   *BlockStack    // the indent token's style is its parent's
	ic      string         // the indent token
	padStr  *string
	tokStr  *string
	iAnsi   bool      // the indent writer is inside an escape sequence
	skip    bool      // the current line is indented
	ia      ansiState // the indent writer's ANSI writer
	pAnsi   bool      // the padding writer is inside an escape sequence
	lineLen int       // cells on the current line, as the padding writer counts
	pa      ansiState // the padding writer's ANSI writer
}

// ansiState is reflow's ansi.Writer: it passes escape sequences on whole,
// and remembers the colour codes since the last reset.
type ansiState struct {
	ansi    bool
	changed bool
	seq     []byte
	last    []byte
	done    []byte            // the sequence last passed on
	rb      [utf8.UTFMax]byte // the rune last passed on
	buf     [32]byte          // room for seq
}

// NewMarginWriter returns a new MarginWriter.
func NewMarginWriter(ctx RenderContext, w io.Writer, rules StyleBlock) *MarginWriter {
	bs := ctx.blockStack

	var indentation uint
	var margin uint
	if rules.Indent != nil {
		indentation = *rules.Indent
	}
	if rules.Margin != nil {
		margin = *rules.Margin
	}

	ic := " "
	if rules.IndentToken != nil {
		ic = *rules.IndentToken
	}
	mw := &MarginWriter{
		w:       w,
		width:   int(bs.Width(ctx)),
		indent:  int(indentation + margin), //nolint: gosec
		profile: ctx.options.ColorProfile,
		rules:   rules.StylePrimitive,
		stack:   bs,
		ic:      ic,
	}
	mw.ia.seq, mw.pa.seq = mw.ia.buf[:0], mw.pa.buf[:0]
	return mw
}

func (w *MarginWriter) Write(b []byte) (int, error) {
	p, ok := outPool.Get().(*[]byte)
	if !ok {
		p = new([]byte)
	}
	w.out = (*p)[:0]
	for i := 0; i < len(b); {
		if !w.iAnsi && !w.ia.ansi && !w.pAnsi && !w.pa.ansi {
			// Fast paths, the same as the rune by rune path below: a run
			// of printable ASCII, and an escape sequence of ASCII that
			// all the writers end at its final letter.
			j := i
			for j < len(b) && b[j] >= 0x20 && b[j] < 0x7f {
				j++
			}
			if j > i {
				w.indentLine()
				w.out = append(w.out, b[i:j]...)
				w.lineLen += j - i
				i = j
				continue
			}
			if k := seqEnd(b, i); k > 0 {
				w.ia.changed, w.pa.changed = true, true
				w.ia.finish(b[i:k])
				w.pa.finish(b[i:k])
				w.out = append(w.out, b[i:k]...)
				i = k
				continue
			}
		}
		c, n := utf8.DecodeRune(b[i:])
		i += n
		// reflow's indent writer
		switch {
		case c == '\x1b':
			w.iAnsi = true
		case w.iAnsi:
			if isLetter(c) {
				w.iAnsi = false
			}
		default:
			w.indentLine()
			if c == '\n' {
				w.skip = false
			}
		}
		if f := w.ia.write(c); f != nil {
			w.padWrite(f)
		}
	}
	_, err := w.w.Write(w.out)
	if cap(w.out) <= 1<<20 {
		*p = w.out
		outPool.Put(p)
	}
	w.out = nil
	if err != nil {
		return 0, fmt.Errorf("glamour: error writing bytes: %w", err)
	}
	return len(b), nil
}

// outPool keeps the buffers MarginWriters write out of.
var outPool sync.Pool

// indentLine indents the line, if it is not yet: what reflow's indent
// writer does at a line's first cell.
func (w *MarginWriter) indentLine() {
	if w.skip {
		return
	}
	if w.ia.changed {
		w.padWrite([]byte("\x1b[0m"))
	}
	if w.indent > 0 {
		if w.tokStr == nil {
			s := styledText(w.profile, w.stack.Parent().Style.StylePrimitive, w.ic)
			w.tokStr = &s
		}
		for range w.indent {
			w.out = append(w.out, *w.tokStr...)
		}
	}
	w.skip = true
	w.padWrite(w.ia.last)
}

// seqEnd is the end of the escape sequence at b[i], if it is ASCII and
// ends at its first letter, and no other byte of it ends one for
// reflow's ANSI writer ('@'); else 0.
func seqEnd(b []byte, i int) int {
	if b[i] != '\x1b' {
		return 0
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case isLetter(rune(c)):
			return j + 1
		case c == '@' || c == '\x1b' || c >= 0x80:
			return 0
		}
	}
	return 0
}

// padWrite is reflow's padding writer's Write.
func (w *MarginWriter) padWrite(b []byte) {
	for i := 0; i < len(b); {
		c, n := utf8.DecodeRune(b[i:])
		i += n
		switch {
		case c == '\x1b':
			w.pAnsi = true
		case w.pAnsi:
			if isLetter(c) {
				w.pAnsi = false
			}
		default:
			if c >= 0x20 && c < 0x7f {
				w.lineLen++
			} else {
				w.lineLen += runewidth.StringWidth(string(c))
			}
			if c == '\n' {
				if w.width > 0 && w.lineLen < w.width {
					if w.padStr == nil {
						s := styledText(w.profile, w.rules, " ")
						w.padStr = &s
					}
					for range w.width - w.lineLen {
						w.out = append(w.out, *w.padStr...)
					}
				}
				if w.pa.changed {
					w.out = append(w.out, "\x1b[0m"...)
				}
				w.lineLen = 0
			}
		}
		w.out = append(w.out, w.pa.write(c)...)
	}
}

// write is reflow's ansi.Writer's Write of the rune c: it returns what
// that passed on, valid until the next call.
func (a *ansiState) write(c rune) []byte {
	switch {
	case c == '\x1b':
		a.ansi, a.changed = true, true
		a.seq = utf8.AppendRune(a.seq, c)
	case a.ansi:
		a.seq = utf8.AppendRune(a.seq, c)
		if (c >= 0x40 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) {
			a.ansi = false
			a.finish(a.seq)
			a.done = append(a.done[:0], a.seq...)
			a.seq = a.seq[:0]
			return a.done
		}
	default:
		return utf8.AppendRune(a.rb[:0], c)
	}
	return nil
}

// finish is what reflow's ansi.Writer does at the end of the sequence
// seq: a reset forgets the colour codes, a colour code is remembered.
func (a *ansiState) finish(seq []byte) {
	if bytes.HasSuffix(seq, []byte("[0m")) {
		a.last, a.changed = a.last[:0], false
	} else if seq[len(seq)-1] == 'm' {
		a.last = append(a.last, seq...)
	}
}

// isLetter is how reflow's indent and padding writers end a sequence.
func isLetter(c rune) bool { return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) }

// styledText is what renderText writes for s (latch).
func styledText(p termenv.Profile, rules StylePrimitive, s string) string {
	var b strings.Builder
	renderText(&b, p, rules, s)
	return b.String()
}
