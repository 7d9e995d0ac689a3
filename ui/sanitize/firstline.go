package sanitize

import "strings"

// FirstLine is the first line of s (an error a server sent, say), trimmed,
// with " …" after it when more lines follow, made safe to show on one line
// (Line) and cut to max characters, "…" after what was cut.
func FirstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	s = Line(s)
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}
