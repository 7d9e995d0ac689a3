package ui

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"latch/permissions"
	"latch/ui/sanitize"
)

// How the approval screens (the permission box, latch approve, latch
// approvals) show a call's arguments: every key, at any depth, one a line
// as indented JSON. A long value is elided in its middle, the count of
// what is left out between its two ends, outside the quotes
// ("abc"…(1,812 characters)…"xyz"), so no value can push a later key off
// the screen and no value can fake an elision. Paths (one line that
// permissions.PathLike reads as a file) and every value a rule looks at
// are shown whole, up to wholeCap; ArgView.Full shows every value whole.
// Every key and string is quoted with each control, format (zero-width,
// bidi) and line-separator character escaped (\u202e), so a hostile
// value shows what it holds and cannot plant a key, a line or a screen.

// ArgView says how the arguments of a call are shown.
type ArgView struct {
	// Whole names the top-level arguments a rule looks at: their values,
	// at any depth, are shown whole.
	Whole []string
	// Full shows every key and value whole.
	Full bool
	// Inline lays the arguments out on one line (latch approvals), with
	// values elided sooner.
	Inline bool
}

const (
	// elideOver is the length (in characters) past which a value is
	// elided; elideKeep characters of each end stay.
	elideOver, elideKeep = 160, 60
	// inlineOver and inlineKeep are the same on one line.
	inlineOver, inlineKeep = 48, 20
	// wholeCap bounds a value shown whole for being a path or looked at
	// by a rule (the longest path Linux opens, in characters): past it,
	// it is elided too, with its count, and ArgView.Full shows it.
	wholeCap = 4096
	// maxIndent bounds the indentation of deeply nested values.
	maxIndent = 24
)

// ArgLines lays out a call's arguments, sanitized, one key a line. It
// also reports how many keys and values were elided.
func ArgLines(args map[string]any, v ArgView) (lines []string, elided int) {
	w := newArgWriter(v)
	w.object("", args, 0, false)
	for i, l := range w.lines {
		w.lines[i] = sanitize.Line(l) // quoteArg left nothing to do: one more guard
	}
	return w.lines, w.elided
}

// ArgLine lays out a call's arguments on one sanitized line (for a
// listing); every key is there, long values elided sooner.
func ArgLine(args map[string]any, v ArgView) string {
	v.Inline = true
	w := newArgWriter(v)
	w.object("", args, 0, false)
	return sanitize.Line(w.b.String())
}

// argWriter lays out one call's arguments.
type argWriter struct {
	view       ArgView
	whole      map[string]bool
	over, keep int
	lines      []string        // lines mode
	b          strings.Builder // inline mode
	elided     int
}

func newArgWriter(v ArgView) *argWriter {
	w := &argWriter{view: v, whole: map[string]bool{}, over: elideOver, keep: elideKeep}
	for _, n := range v.Whole {
		w.whole[n] = true
	}
	if v.Inline {
		w.over, w.keep = inlineOver, inlineKeep
	}
	return w
}

// open starts a line at depth with text (lines mode), or adds text.
func (w *argWriter) open(depth int, text string) {
	if w.view.Inline {
		w.b.WriteString(text)
		return
	}
	w.lines = append(w.lines, strings.Repeat("  ", min(depth, maxIndent))+text)
}

// add adds text to the line being written.
func (w *argWriter) add(text string) {
	if w.view.Inline {
		w.b.WriteString(text)
		return
	}
	w.lines[len(w.lines)-1] += text
}

// object writes an object; prefix is its key's `"key": `, or "".
func (w *argWriter) object(prefix string, o map[string]any, depth int, whole bool) {
	if len(o) == 0 {
		w.open(depth, prefix+"{}")
		return
	}
	w.open(depth, prefix+"{")
	for i, k := range slices.Sorted(maps.Keys(o)) {
		if i > 0 {
			w.sep()
		}
		// A top-level argument a rule looks at is whole to its depths.
		kw := whole || (depth == 0 && w.whole[k])
		w.value(w.key(k, kw)+": ", k, o[k], depth+1, kw)
	}
	w.close(depth, "}")
}

// array writes a list, whose elements are read as name's values.
func (w *argWriter) array(prefix, name string, a []any, depth int, whole bool) {
	if len(a) == 0 {
		w.open(depth, prefix+"[]")
		return
	}
	w.open(depth, prefix+"[")
	for i, e := range a {
		if i > 0 {
			w.sep()
		}
		w.value("", name, e, depth+1, whole)
	}
	w.close(depth, "]")
}

// sep ends an element: a comma, then on one line a space.
func (w *argWriter) sep() {
	w.add(",")
	if w.view.Inline {
		w.b.WriteString(" ")
	}
}

// close writes the end of an object or a list.
func (w *argWriter) close(depth int, text string) {
	if w.view.Inline {
		w.b.WriteString(text)
		return
	}
	w.open(depth, text)
}

// value writes v, the value of (or in) the argument name.
func (w *argWriter) value(prefix, name string, v any, depth int, whole bool) {
	switch x := v.(type) {
	case map[string]any:
		w.object(prefix, x, depth, whole)
	case []any:
		w.array(prefix, name, x, depth, whole)
	case string:
		w.open(depth, prefix+w.str(x, whole || pathShown(name, x)))
	default:
		b, err := json.Marshal(x)
		if err != nil {
			b = []byte(strconv.Quote(fmt.Sprint(x)))
		}
		w.open(depth, prefix+sanitize.Line(string(b)))
	}
}

// pathShown reports whether s is a path the screens show whole: one line
// that may name a file.
func pathShown(name, s string) bool {
	return !strings.ContainsAny(s, "\n\r") && permissions.PathLike(name, s)
}

// key is a key, quoted, elided when long (a key that names a file is
// whole).
func (w *argWriter) key(k string, whole bool) string {
	return w.str(k, whole || pathShown("", k))
}

// str is s quoted, whole or elided in its middle.
func (w *argWriter) str(s string, whole bool) string {
	n := utf8.RuneCountInString(s)
	limit := w.over
	switch {
	case w.view.Full:
		return quoteArg(s)
	case whole:
		limit = wholeCap
	}
	if n <= limit {
		return quoteArg(s)
	}
	w.elided++
	keep := w.keep
	if whole {
		keep = wholeCap / 2
	}
	head, tail := runePrefix(s, keep), runeSuffix(s, keep)
	return quoteArg(head) + "…(" + thousands(n-2*keep) + " characters)…" + quoteArg(tail)
}

// runePrefix and runeSuffix are the first and last n characters of s.
func runePrefix(s string, n int) string {
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func runeSuffix(s string, n int) string {
	i := len(s)
	for range n {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// quoteArg quotes s as a JSON string, every character that could hide or
// move text escaped: C0 and C1 controls, DEL, format characters
// (zero-width, bidi, BOM, soft hyphen), line and paragraph separators,
// invalid UTF-8 (as \ufffd).
func quoteArg(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r < 0x20 || (r >= 0x7f && r < 0xa0) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp):
			escapeRune(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// escapeRune writes r as JSON does: \uXXXX, or a surrogate pair.
func escapeRune(b *strings.Builder, r rune) {
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		fmt.Fprintf(b, `\u%04x\u%04x`, r1, r2)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}
