package session

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"latch/ui/sanitize"
)

// mdSink writes Markdown. A value is a code span and a text a fenced
// block, each delimited by more backticks than it holds: a viewer shows
// them as they are, never as a link, an image or HTML.
type mdSink struct{ b *bytes.Buffer }

func (m *mdSink) begin(string) {}

func (m *mdSink) heading(level int, parts ...part) {
	m.b.WriteString(strings.Repeat("#", level) + " " + m.join(parts) + "\n\n")
}

func (m *mdSink) line(parts ...part) { m.b.WriteString(m.join(parts) + "\n\n") }

func (m *mdSink) block(text, lang string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(m.b, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimSuffix(text, "\n"), fence)
}

func (m *mdSink) fold(summary, text string) {
	fmt.Fprintf(m.b, "<details><summary>%s</summary>\n\n", html.EscapeString(summary))
	m.block(text, "text")
	m.b.WriteString("</details>\n\n")
}

func (m *mdSink) end() {}

func (m *mdSink) join(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.value {
			b.WriteString(codeSpan(p.s))
		} else {
			b.WriteString(p.s)
		}
	}
	return b.String()
}

// codeSpan is s on one line as a Markdown code span; "-" stands for an
// empty value.
func codeSpan(s string) string {
	s = sanitize.Line(s)
	if s == "" {
		return "-"
	}
	delim := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return delim + s + delim
}

// htmlSink writes a page that stands alone: every value escaped, styles
// inline, and a Content-Security-Policy that lets it run no script and
// fetch nothing.
type htmlSink struct{ b *bytes.Buffer }

func (h *htmlSink) begin(title string) {
	fmt.Fprintf(h.b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<title>%s</title>
<style>
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; line-height: 1.4; }
pre { background: #f4f4f4; padding: .6em; white-space: pre-wrap; overflow-wrap: anywhere; }
code { background: #f4f4f4; padding: 0 .2em; }
details { margin: .5em 0; }
</style>
</head>
<body>
`, html.EscapeString(title))
}

func (h *htmlSink) heading(level int, parts ...part) {
	fmt.Fprintf(h.b, "<h%d>%s</h%d>\n", level, h.join(parts), level)
}

func (h *htmlSink) line(parts ...part) { fmt.Fprintf(h.b, "<p>%s</p>\n", h.join(parts)) }

func (h *htmlSink) block(text, _ string) {
	fmt.Fprintf(h.b, "<pre>%s</pre>\n", html.EscapeString(strings.TrimSuffix(text, "\n")))
}

func (h *htmlSink) fold(summary, text string) {
	fmt.Fprintf(h.b, "<details><summary>%s</summary>\n", html.EscapeString(summary))
	h.block(text, "")
	h.b.WriteString("</details>\n")
}

func (h *htmlSink) end() { h.b.WriteString("</body>\n</html>\n") }

func (h *htmlSink) join(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.value {
			if s := sanitize.Line(p.s); s != "" {
				b.WriteString("<code>" + html.EscapeString(s) + "</code>")
			} else {
				b.WriteString("-")
			}
		} else {
			b.WriteString(html.EscapeString(p.s))
		}
	}
	return b.String()
}
