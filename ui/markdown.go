package ui

import (
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// margin is the indent of assistant text, matching glamour's document margin
// so that plain streaming text and rendered markdown line up.
const margin = "  "

// mdRenderer renders markdown at one width with glamour. glamour is not
// goroutine-safe; use it from Update/View only.
type mdRenderer struct {
	style string
	width int
	r     *glamour.TermRenderer
}

func newMDRenderer(style string) *mdRenderer { return &mdRenderer{style: style} }

// setStyle switches the glamour style; the renderer is rebuilt on next use.
func (m *mdRenderer) setStyle(style string) {
	m.style, m.r = style, nil
}

// render returns the lines of md rendered at width, without glamour's
// leading and trailing blank lines and without trailing padding.
func (m *mdRenderer) render(md string, width int) []string {
	if width < 10 {
		width = 10
	}
	if m.r == nil || m.width != width {
		style := m.style
		if lipgloss.ColorProfile() == termenv.Ascii {
			style = "ascii" // no colour: no bold or italics either (NO_COLOR, tests)
		}
		r, err := glamour.NewTermRenderer(
			glamour.WithStandardStyle(style),
			glamour.WithWordWrap(width-len(margin)*2),
			glamour.WithColorProfile(lipgloss.ColorProfile()),
		)
		if err != nil {
			return plainLines(md, width)
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(md)
	if err != nil {
		return plainLines(md, width)
	}
	lines := strings.Split(out, "\n")
	fitted := lines[:0:0]
	for _, l := range lines {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) > width {
			// glamour does not wrap code blocks; a line wider than the
			// screen would break the frame, so wrap it hard.
			fitted = append(fitted, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
			continue
		}
		fitted = append(fitted, l)
	}
	return trimBlank(fitted)
}

// trimBlank drops empty lines (ignoring styling) at both ends.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// plainLines wraps text to width with the assistant margin, unstyled.
func plainLines(text string, width int) []string {
	w := width - len(margin)*2
	if w < 10 {
		w = 10
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = append(out, wrapLine(l, w, margin)...)
	}
	return out
}

// wrapLine word-wraps one source line (hard-wrapping long words) and indents it.
func wrapLine(l string, w int, indent string) []string {
	l = strings.ReplaceAll(l, "\t", "    ")
	if ansi.StringWidth(l) <= w {
		return []string{indent + l}
	}
	parts := strings.Split(ansi.Wrap(l, w, ""), "\n")
	for i, p := range parts {
		parts[i] = indent + p
	}
	return parts
}

// mdStream shows a reply whose markdown is still arriving. Finished blocks
// (separated by a blank line outside a code fence) are rendered with glamour
// once and kept; the unfinished block is shown as plain wrapped text, of
// which only the last, growing line is re-wrapped per delta. So the cost of
// a delta does not grow with the reply.
type mdStream struct {
	src       strings.Builder
	cut       int      // bytes of src that are rendered blocks
	lineStart int      // start of the incomplete last line
	inFence   bool     // inside a ``` or ~~~ block
	fence     string   // the fence that opened it
	blocks    []string // rendered lines of the finished blocks
	tailDone  []string // wrapped complete lines of the unfinished block
	tailLine  []string // the wrapped incomplete line
	width     int
	// plain streams (thinking traces) never render markdown: every line is
	// wrapped to width-len(indent), prefixed with indent and styled.
	plain  bool
	indent string
	style  func(...string) string
}

// reset clears the stream for a new width: everything is laid out again.
func (s *mdStream) relayout(r *mdRenderer, width int) {
	text := s.src.String()
	*s = mdStream{width: width, plain: s.plain, indent: s.indent, style: s.style}
	s.append(r, text)
}

// append adds a delta and updates the layout.
func (s *mdStream) append(r *mdRenderer, delta string) {
	s.src.WriteString(delta)
	src := s.src.String()
	indent, w := margin, s.width-len(margin)*2
	if s.plain {
		indent, w = "", s.width-len(margin)-ansiWidth(s.indent)
	}
	if w < 10 {
		w = 10
	}
	wrap := func(line string) []string {
		ls := wrapLine(sanitizeText(line), w, indent)
		if s.plain {
			for i, l := range ls {
				ls[i] = margin + s.style(s.indent+l)
			}
		}
		return ls
	}
	for {
		nl := strings.IndexByte(src[s.lineStart:], '\n')
		if nl < 0 {
			break
		}
		end := s.lineStart + nl
		line := src[s.lineStart:end]
		trimmed := strings.TrimSpace(line)
		switch {
		case s.inFence:
			if strings.HasPrefix(trimmed, s.fence) && strings.Trim(trimmed, s.fence[:1]) == "" {
				s.inFence = false
			}
			s.tailDone = append(s.tailDone, wrap(line)...)
		case s.plain:
			s.tailDone = append(s.tailDone, wrap(line)...)
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			s.inFence, s.fence = true, trimmed[:3]
			s.tailDone = append(s.tailDone, wrap(line)...)
		case trimmed == "":
			if block := src[s.cut:s.lineStart]; strings.TrimSpace(block) != "" {
				if len(s.blocks) > 0 {
					s.blocks = append(s.blocks, "")
				}
				s.blocks = append(s.blocks, r.render(sanitizeText(block), s.width)...)
			}
			s.cut = end + 1
			s.tailDone = s.tailDone[:0]
		default:
			s.tailDone = append(s.tailDone, wrap(line)...)
		}
		s.lineStart = end + 1
	}
	s.tailLine = nil
	if rest := src[s.lineStart:]; rest != "" {
		s.tailLine = wrap(rest)
	}
}

// segments returns the current lines, in order, as slices that must not be
// modified: rendered blocks, a separator, and the plain tail.
func (s *mdStream) segments() [][]string {
	tail := len(s.tailDone) + len(s.tailLine)
	segs := make([][]string, 0, 4)
	segs = append(segs, s.blocks)
	if len(s.blocks) > 0 && tail > 0 {
		segs = append(segs, blankLine)
	}
	return append(segs, s.tailDone, s.tailLine)
}

var blankLine = []string{""}

func ansiWidth(s string) int { return ansi.StringWidth(s) }
