package ui

import (
	"strings"
	"testing"
)

// TestArgLinesInert: what a hostile client puts in keys and values shows
// as what it is: controls, format characters (zero-width, bidi), line
// separators and invalid UTF-8 escaped; a planted elision or key stays
// inside its quotes; a value nested 100 deep is indented no further than
// maxIndent levels.
func TestArgLinesInert(t *testing.T) {
	deep := any("bottom")
	for range 100 {
		deep = map[string]any{"d": deep}
	}
	args := map[string]any{
		"a\u200bb":  "x\u2028y\u2066z\xffw\x7f",
		"fake":      `"…(5 characters)…"`,
		"planted":   "v\",\n\"zz\": \"w",
		"deep":      deep,
		"zz":        "real",
		"\x1b[31mk": "\u009b2J",
	}
	lines, elided := ArgLines(args, ArgView{})
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		`  "a\u200bb": "x\u2028y\u2066z\ufffdw\u007f",`,
		`  "fake": "\"…(5 characters)…\"",`,
		`  "planted": "v\",\n\"zz\": \"w",`,
		`  "zz": "real"`,
		`  "\u001b[31mk": "\u009b2J",`,
		strings.Repeat("  ", maxIndent) + `"d": "bottom"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("ArgLines does not show %q:\n%s", want, text)
		}
	}
	if elided != 0 || strings.Count(text, `"zz"`) != 1 {
		t.Errorf("elided %d, or a planted key shows as a key:\n%s", elided, text)
	}
	if one := ArgLine(args, ArgView{}); strings.Contains(one, "\n") || !strings.HasSuffix(one, `"zz": "real"}`) {
		t.Errorf("ArgLine is not one line ending with the last key: %q", one)
	}
}
