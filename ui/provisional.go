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
//     complete; until then its lines are not drawn.
//   - An open code span or emphasis on the last line is closed at the end
//     of the text, so its words are drawn in the style they will keep;
//     a marker with nothing after it yet is not drawn.
//
// An open code fence needs nothing: markdown draws it as code to the end.
func provisional(block string, inFence bool) string {
	start := strings.LastIndexByte(block, '\n') + 1
	last := block[start:]
	trimmed := strings.TrimSpace(last)
	if inFence {
		if trimmed != "" && strings.Trim(trimmed, "`~") == "" {
			return block[:start] // part of the closing fence
		}
		return block
	}
	if bareStart.MatchString(trimmed) {
		return block[:start]
	}
	if cut, ok := tableStart(block); ok {
		return block[:cut]
	}
	return block[:start] + closeInline(last)
}

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
		if c != '`' && c != '*' && c != '_' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == c {
			j++
		}
		run := line[i:j]
		before, after := byte(' '), byte(0) // 0: the end, where text may follow
		if i > 0 {
			before = line[i-1]
		}
		if j < len(line) {
			after = line[j]
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
		case inCode() || len(run) > 2:
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
	if o := open[len(open)-1]; strings.TrimRight(line[o.at+len(o.marker):], " ") == "" {
		// The innermost opener has no text after it yet.
		line = line[:o.at]
		open = open[:len(open)-1]
	}
	line = strings.TrimRight(line, " ")
	for i := len(open) - 1; i >= 0; i-- {
		line += open[i].marker
	}
	return line
}
