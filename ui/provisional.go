package ui

import (
	"regexp"
	"strings"
)

// provisional is the unfinished block of a reply as it is drawn while it
// streams: the text so far, cut or closed where a construct is still open,
// so that it renders as its finished form will and the rows drawn stay
// when the rest arrives.
//
//   - A line that is only the start of a construct (a fence still without
//     its end of line, a bare list marker or heading mark, part of a
//     closing fence) is not drawn yet.
//   - A table is drawn once its header row and the row under it are
//     complete; until then its lines are not drawn. Then each row is
//     drawn when it is complete, and so is each line of code.
//   - An open code span or emphasis on the last line is closed at the end
//     of the text, so its words are drawn in the style they will keep;
//     a marker with nothing after it yet is not drawn.
//
// An open code fence needs no closing: markdown draws it as code to the end.
func provisional(block string, inFence bool) string {
	start := strings.LastIndexByte(block, '\n') + 1
	last := block[start:]
	trimmed := strings.TrimSpace(last)
	if cut, ok := tableStart(block); ok && !inFence {
		return block[:cut]
	}
	if inFence || strings.HasPrefix(trimmed, "|") {
		// A line of code is drawn when it is complete (highlighting an
		// incomplete one differs: an open string, a keyword's start),
		// and so is a table's row (its cells may change the columns).
		return block[:start]
	}
	if bareStart.MatchString(trimmed) {
		return block[:start]
	}
	from := inlineStart(block)
	return block[:from] + closeInline(block[from:])
}

// inlineStart is where the last paragraph's inline text starts: the last
// line that starts a list item, a quote, a heading or a table row, or the
// block's start. Emphasis does not run across them.
func inlineStart(block string) int {
	for end := len(block); end > 0; {
		start := strings.LastIndexByte(block[:end], '\n') + 1
		if lineStart.MatchString(block[start:end]) {
			return start
		}
		end = start - 1
	}
	return 0
}

// lineStart is a line that starts a construct of its own.
var lineStart = regexp.MustCompile(`^\s*([-*+>|#]|\d{1,9}[.)])`)

// bareStart is a last line that is only the start of a construct: a fence
// (its info string may be incomplete), a list marker, a heading's marks.
var bareStart = regexp.MustCompile("^(```.*|~~~.*|[-*+]|\\d{1,9}[.)]?|#{1,6})$")

// tableStart finds a table whose header is not complete at the end of the
// block: the run of lines starting with '|' at its end, unless two whole
// lines of it (the header and its delimiter row) arrived.
func tableStart(block string) (int, bool) {
	lines := strings.SplitAfter(block, "\n")
	run, whole := len(block), 0
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
			break
		}
		run -= len(lines[i])
		if strings.HasSuffix(lines[i], "\n") {
			whole++
		}
	}
	if run == len(block) || whole >= 2 {
		return 0, false
	}
	return run, true
}

// closeInline closes the code span, emphasis and link still open at the
// end of text, the last paragraph's: an opener followed by text gets its
// closer after the text; one with nothing after it is dropped.
func closeInline(text string) string {
	sc := inlineScan{text: text}
	for i := 0; i < len(text); {
		i = sc.step(i)
	}
	return sc.closed()
}

// inlineScan follows the openers of a paragraph's inline text.
type inlineScan struct {
	text string
	open []opener // innermost last
}

// opener is an open construct: where it starts, and its marker ("**",
// "`", "[" for a link's text, "(" for its destination, "<" an autolink).
type opener struct {
	at     int
	marker string
}

func (sc *inlineScan) top() string {
	if len(sc.open) == 0 {
		return ""
	}
	return sc.open[len(sc.open)-1].marker
}

func (sc *inlineScan) pop() { sc.open = sc.open[:len(sc.open)-1] }

// step reads the text at i and returns where to go on.
func (sc *inlineScan) step(i int) int {
	c := sc.text[i]
	if sc.top() == "`" {
		if c == '`' {
			return sc.delimiter(i)
		}
		return i + 1
	}
	switch c {
	case '\\':
		return i + 2
	case '[', ']', ')', '<':
		return sc.link(i)
	case '`', '*', '_', '~':
		return sc.delimiter(i)
	}
	return i + 1
}

// link follows a link's brackets and parentheses and an autolink's '<'.
func (sc *inlineScan) link(i int) int {
	switch c := sc.text[i]; {
	case c == '[':
		sc.open = append(sc.open, opener{i, "["})
	case c == ']' && sc.top() == "[":
		if i+1 < len(sc.text) && sc.text[i+1] == '(' {
			sc.open[len(sc.open)-1].marker = "("
			return i + 2
		}
		sc.pop() // text in brackets, not a link
	case c == ')' && sc.top() == "(":
		sc.pop()
	case c == '<' && strings.HasPrefix(sc.text[i+1:], "http") && !strings.ContainsAny(sc.text[i:], "> \n"):
		sc.open = append(sc.open, opener{i, "<"})
		return len(sc.text) // the rest is the address
	}
	return i + 1
}

// delimiter follows a run of '`', '*', '_' or '~' at i.
func (sc *inlineScan) delimiter(i int) int {
	c, j := sc.text[i], i
	for j < len(sc.text) && sc.text[j] == c {
		j++
	}
	run := sc.text[i:j]
	before, after := byte(' '), byte(0) // 0: the end, where text may follow
	if i > 0 && sc.text[i-1] != '\n' {
		before = sc.text[i-1]
	}
	if j < len(sc.text) {
		after = sc.text[j]
	}
	if after == '\n' {
		after = ' '
	}
	switch {
	case c == '`':
		if run == "`" && sc.top() == "`" {
			sc.pop()
		} else if run == "`" {
			sc.open = append(sc.open, opener{i, run})
		}
	case len(run) > 2 || (c == '~' && len(run) != 2):
	case sc.top() == run && before != ' ':
		sc.pop() // closes the innermost
	case after != ' ' && (c == '*' || before == ' '):
		sc.open = append(sc.open, opener{i, run})
	}
	return j
}

// closed is the text with what is still open closed.
func (sc *inlineScan) closed() string {
	text := sc.text
	if len(sc.open) == 0 {
		return text
	}
	if o := sc.open[len(sc.open)-1]; len(o.marker) <= 2 && strings.TrimSpace(text[o.at+len(o.marker):]) == "" {
		// The innermost opener has no text after it yet.
		text = text[:o.at]
		sc.pop()
	}
	text = strings.TrimRight(text, " \n")
	for i := len(sc.open) - 1; i >= 0; i-- {
		text += closer[sc.open[i].marker]
	}
	return text
}

// closer is what closes each opener closeInline keeps: a link's text
// before its destination, its destination, an autolink.
var closer = map[string]string{"`": "`", "*": "*", "**": "**", "_": "_", "__": "__", "~~": "~~",
	"[": "]()", "(": ")", "<": ">"}
