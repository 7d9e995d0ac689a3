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

// closeInline closes the code span and the emphasis still open at the end
// of line, the last line of a paragraph: an opener followed by text gets
// its closer after the text; one with nothing after it is dropped.
func closeInline(line string) string {
	type opener struct {
		at     int
		marker string
	}
	var open []opener
	inCode := func() bool { return len(open) > 0 && open[len(open)-1].marker == "`" }
	for i := 0; i < len(line); {
		c := line[i]
		if c == '\\' && !inCode() {
			i += 2
			continue
		}
		if c == '[' && !inCode() {
			open = append(open, opener{i, "["})
			i++
			continue
		}
		if c == ']' && !inCode() && len(open) > 0 && open[len(open)-1].marker == "[" {
			open[len(open)-1].marker = "]" // the link's text ended
			if i+1 == len(line) || line[i+1] != '(' {
				open = open[:len(open)-1] // not a link: text in brackets
			} else {
				open[len(open)-1].marker = "("
				i += 2
				continue
			}
			i++
			continue
		}
		if c == ')' && !inCode() && len(open) > 0 && open[len(open)-1].marker == "(" {
			open = open[:len(open)-1]
			i++
			continue
		}
		if c == '<' && !inCode() && strings.HasPrefix(line[i+1:], "http") {
			if k := strings.IndexAny(line[i:], "> \n"); k < 0 {
				open = append(open, opener{i, "<"})
				break
			}
		}
		if c != '`' && c != '*' && c != '_' && c != '~' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == c {
			j++
		}
		run := line[i:j]
		before, after := byte(' '), byte(0) // 0: the end, where text may follow
		if i > 0 && line[i-1] != '\n' {
			before = line[i-1]
		}
		if j < len(line) {
			after = line[j]
		}
		if after == '\n' {
			after = ' '
		}
		switch {
		case c == '`' && inCode():
			if run == "`" {
				open = open[:len(open)-1]
			}
		case c == '`':
			if run == "`" {
				open = append(open, opener{i, run})
			}
		case inCode() || len(run) > 2 || (c == '~' && len(run) != 2):
		case len(open) > 0 && open[len(open)-1].marker == run && before != ' ':
			open = open[:len(open)-1] // closes the innermost
		case after != ' ' && (c == '*' || before == ' '):
			open = append(open, opener{i, run})
		}
		i = j
	}
	if len(open) == 0 {
		return line
	}
	if o := open[len(open)-1]; len(o.marker) <= 2 && strings.TrimSpace(line[o.at+len(o.marker):]) == "" {
		// The innermost opener has no text after it yet.
		line = line[:o.at]
		open = open[:len(open)-1]
	}
	line = strings.TrimRight(line, " \n")
	for i := len(open) - 1; i >= 0; i-- {
		line += closer[open[i].marker]
	}
	return line
}

// closer is what closes each opener closeInline keeps: a link's text
// before its destination, its destination, an autolink.
var closer = map[string]string{"`": "`", "*": "*", "**": "**", "_": "_", "__": "__", "~~": "~~",
	"[": "]()", "(": ")", "<": ">"}
