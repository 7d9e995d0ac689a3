package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// margin is the indent of assistant text, matching glamour's document margin
// so that plain streaming text and rendered markdown line up.
const margin = "  "

// mdRenderer renders markdown at one width with glamour's renderer (see
// mdPipeline). glamour is not goroutine-safe; use it from Update/View only.
type mdRenderer struct {
	style string
	p     *mdPipeline // nil until used, and after a change of style
}

func newMDRenderer(style string) *mdRenderer { return &mdRenderer{style: style} }

// setStyle switches the glamour style; the renderer is rebuilt on next use.
func (m *mdRenderer) setStyle(style string) {
	m.style, m.p = style, nil
}

// render returns the lines of md rendered at width, without glamour's
// leading and trailing blank lines and without trailing padding. The
// chunks it renders are kept, for the next render of the same text (see
// mdchunks.go).
func (m *mdRenderer) render(md string, width int) []string {
	return m.renderKeep(md, width, true, false)
}

// renderAfter is render for a block drawn after another (a streaming
// reply's finished block): its first line as the reply's render will
// draw it there, so that the reply's render finds it kept.
func (m *mdRenderer) renderAfter(md string, width int) []string {
	return m.renderKeep(md, width, true, true)
}

// renderProvisional is render for text drawn once and then replaced (a
// streaming reply's unfinished block): it keeps nothing.
func (m *mdRenderer) renderProvisional(md string, width int) []string {
	return m.renderKeep(md, width, false, false)
}

func (m *mdRenderer) renderKeep(md string, width int, keep, after bool) []string {
	if width < 10 {
		width = 10
	}
	if m.p == nil {
		style := m.style
		if lipgloss.ColorProfile() == termenv.Ascii {
			style = "ascii" // no colour: no bold or italics either (NO_COLOR, tests)
		}
		// A single newline is a line break, as chat users expect and as
		// the reply showed while it streamed (PreserveNewLines).
		p, err := newMDPipeline(style, lipgloss.ColorProfile())
		if err != nil {
			return plainLines(md, width)
		}
		m.p = p
	}
	out, err := m.p.render([]byte(breakLongWords(md, width-len(margin)*2)), width-len(margin)*2, keep, after)
	if err != nil {
		return plainLines(md, width)
	}
	lines := strings.Split(out, "\n")
	fitted := lines[:0:0]
	for _, l := range lines {
		l = strings.TrimRight(l, " ")
		if ansi.StringWidth(l) > width {
			// glamour wraps a code block's long lines at the block's
			// indent (third_party/glamour, codewrap.go); a line still
			// wider than the screen (a table's, a screen too narrow for
			// the indents) would break the frame, so wrap it hard.
			fitted = append(fitted, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
			continue
		}
		fitted = append(fitted, l)
	}
	return trimBlank(fitted)
}

// trimBlank drops empty lines (ignoring styling) at both ends.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// isBlank reports whether l shows nothing but spaces: whether
// strings.TrimSpace(ansi.Strip(l)) is empty. glamour's blank lines are
// padded to the wrap width with a colour code around each space; they
// are read here at a glance, and any line not made of spaces, colour
// codes and printable ASCII as ansi.Strip would.
func isBlank(l string) bool {
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == ' ':
		case c == '\x1b' && i+1 < len(l) && l[i+1] == '[':
			j := i + 2
			for j < len(l) && l[j] >= 0x20 && l[j] <= 0x3f {
				j++
			}
			if j == len(l) || l[j] < 0x40 || l[j] > 0x7e {
				return strings.TrimSpace(ansi.Strip(l)) == ""
			}
			i = j
		case c > ' ' && c < 0x7f:
			return false
		default:
			return strings.TrimSpace(ansi.Strip(l)) == ""
		}
	}
	return true
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
	rows := fitRows(strings.Split(ansi.Wrap(l, w, ""), "\n"), w)
	out := rows[:0]
	for _, r := range rows {
		// ansi.Wrap can leave the space it broke at as a row of its own
		// (before a word starting with '-'): a blank line inside the text.
		if strings.TrimSpace(ansi.Strip(r)) != "" {
			out = append(out, indent+r)
		}
	}
	if len(out) == 0 {
		return []string{indent}
	}
	return out
}

// fitRows cuts rows wider than w: ansi.Wrap keeps the spaces that start a
// line in front of a word as wide as the line, and so overflows it.
func fitRows(rows []string, w int) []string {
	for i, r := range rows {
		if len(r) > w && ansi.StringWidth(r) > w {
			out := append([]string(nil), rows[:i]...)
			for _, r := range rows[i:] {
				if len(r) > w && ansi.StringWidth(r) > w {
					out = append(out, strings.Split(ansi.Hardwrap(r, w, true), "\n")...)
				} else {
					out = append(out, r)
				}
			}
			return out
		}
	}
	return rows
}

// mdStream shows a reply whose markdown is still arriving. Finished blocks
// (separated by a blank line outside a code fence) are rendered with glamour
// once and kept. The unfinished block is rendered by the same pipeline, as
// the text so far (see provisional), when it is drawn (see segments), not
// per delta: so it is drawn with the wrapping, margins and colours it will
// keep, and when it ends its rows do not change. The cost of a frame is the
// unfinished block's, not the reply's.
//
// A plain stream (a thinking trace) has no markdown, and an unfinished
// block longer than maxLiveBlock is not rendered as markdown: their
// complete lines are wrapped once; of the incomplete last line only the
// end is wrapped again per delta (see tailWrap). So the cost of a delta
// does not grow with the stream, not even when it is one long line. A
// markdown stream's block is laid out so only from when it grows past
// maxLiveBlock (layOut): until then its rendered form is what is drawn.
type mdStream struct {
	src       strings.Builder
	scanned   int      // bytes of src searched for a newline
	cut       int      // bytes of src that are rendered blocks
	lineStart int      // start of the incomplete last line
	inFence   bool     // inside a ``` or ~~~ block
	fence     string   // the fence that opened it
	blocks    []string // rendered lines of the finished blocks
	tailDone  []string // wrapped complete lines of the unfinished block
	laidOut   bool     // tailDone and tail are kept (see layOut)
	tail      tailWrap // the incomplete last line
	width     int
	// plain streams (thinking traces) never render markdown: every line is
	// wrapped to width-len(indent), prefixed with indent and styled.
	plain  bool
	indent string
	style  func(...string) string

	r       *mdRenderer // renders the unfinished block of a markdown stream
	md      []string    // the unfinished block, rendered (markdown streams)
	mdSrc   string      // the markdown md was rendered from
	mdDirty bool        // md is older than the source
}

// tailWrap wraps the incomplete last line of a stream as it grows. Word
// wrapping is greedy: text added to a line can change only its last wrapped
// row, never the rows before. So rows are frozen once two more follow them,
// and only the text from the first row not frozen is wrapped again.
type tailWrap struct {
	from   int      // raw offset of the line in the stream's source
	safe   int      // raw offset up to which san holds the line, sanitized
	san    []byte   // the line, sanitized, up to safe
	resume int      // offset in san of the first row not frozen
	frozen []string // the frozen rows, decorated
	live   []string // the rows from resume on, decorated
}

// reset starts a new line at raw offset from.
func (t *tailWrap) reset(from int) {
	t.from, t.safe, t.san, t.resume, t.frozen, t.live = from, from, t.san[:0], 0, nil, nil
}

// relayout clears the stream for a new width: everything is laid out again.
func (s *mdStream) relayout(r *mdRenderer, width int) {
	text := s.src.String()
	*s = mdStream{width: width, plain: s.plain, indent: s.indent, style: s.style, r: r}
	s.append(r, text)
}

// wrapWidth is the width lines are wrapped to, and their indent.
func (s *mdStream) wrapWidth() (string, int) {
	indent, w := margin, s.width-len(margin)*2
	if s.plain {
		indent, w = "", s.width-len(margin)-ansiWidth(s.indent)
	}
	return indent, max(w, 10)
}

// decorate indents (and, for a plain stream, styles) wrapped rows.
func (s *mdStream) decorate(rows []string) []string {
	indent, _ := s.wrapWidth()
	for i, l := range rows {
		if s.plain {
			rows[i] = margin + s.style(s.indent+l)
		} else {
			rows[i] = indent + l
		}
	}
	return rows
}

// wrap lays out one complete line of src, from the tail's state when the
// line was seen incomplete before.
func (s *mdStream) wrap(src string, start, end int) []string {
	_, w := s.wrapWidth()
	if s.tail.from != start || s.tail.safe == start {
		rows, _ := greedyWrap(sanitizeText(src[start:end]), w)
		return s.decorate(rows)
	}
	rows, _ := greedyWrap(string(s.tail.san[s.tail.resume:])+sanitizeText(src[s.tail.safe:end]), w)
	return append(s.tail.frozen, s.decorate(rows)...)
}

// growTail lays out the incomplete last line, src[lineStart:], again.
func (s *mdStream) growTail(src string) {
	t := &s.tail
	if t.from != s.lineStart {
		t.reset(s.lineStart)
	}
	// Sanitize what arrived, but for a last rune that may be incomplete
	// (or a CR that a LF may follow): sanitizing text in pieces is the same
	// as at once when every piece ends after a whole rune other than CR.
	raw := src[t.safe:]
	keep := len(raw)
	if keep > 0 && raw[keep-1] == '\r' {
		keep--
	} else if r, n := utf8.DecodeLastRuneInString(raw); r == utf8.RuneError && n <= 1 && keep > 0 {
		for k := 1; k <= min(utf8.UTFMax-1, keep); k++ {
			if utf8.RuneStart(raw[keep-k]) {
				if !utf8.FullRuneInString(raw[keep-k:]) {
					keep -= k
				}
				break
			}
		}
	}
	t.san = append(t.san, sanitizeText(raw[:keep])...)
	t.safe += keep
	_, w := s.wrapWidth()
	rows, starts := greedyWrap(string(t.san[t.resume:])+sanitizeText(raw[keep:]), w)
	// All rows but the last are final (see greedyWrap); two are kept open,
	// and only text of the sanitized line (not the held-back end) frozen.
	if n := len(rows) - 2; n > 0 && starts[n] <= len(t.san)-t.resume {
		t.frozen = append(t.frozen, s.decorate(rows[:n])...)
		t.resume += starts[n]
		rows = rows[n:]
	}
	t.live = s.decorate(rows)
}

// isWrapSpace reports whether wrapping may drop r at a break.
func isWrapSpace(r rune) bool { return unicode.IsSpace(r) && r != '\u00a0' }

// append adds a delta and updates the layout.
func (s *mdStream) append(r *mdRenderer, delta string) {
	s.src.WriteString(delta)
	s.r, s.mdDirty = r, true
	src := s.src.String()
	for {
		nl := strings.IndexByte(src[s.scanned:], '\n')
		if nl < 0 {
			s.scanned = len(src)
			break
		}
		end := s.scanned + nl
		line := src[s.lineStart:end]
		trimmed := strings.TrimSpace(line)
		switch {
		case s.inFence:
			if strings.HasPrefix(trimmed, s.fence) && strings.Trim(trimmed, s.fence[:1]) == "" {
				s.inFence = false
			}
			s.addLine(src, end)
		case s.plain:
			s.addLine(src, end)
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			s.inFence, s.fence = true, trimmed[:3]
			s.addLine(src, end)
		case trimmed == "":
			if block := src[s.cut:s.lineStart]; strings.TrimSpace(block) != "" {
				if len(s.blocks) > 0 {
					s.blocks = append(s.blocks, "")
					s.blocks = append(s.blocks, r.renderAfter(sanitizeText(block), s.width)...)
				} else {
					s.blocks = append(s.blocks, r.render(sanitizeText(block), s.width)...)
				}
			}
			s.cut = end + 1
			s.tailDone, s.laidOut = s.tailDone[:0], false
		default:
			s.addLine(src, end)
		}
		s.lineStart, s.scanned = end+1, end+1
		s.tail.reset(s.lineStart)
	}
	if !s.plain && !s.laidOut && len(src)-s.cut > maxLiveBlock {
		s.layOut(src)
	}
	if s.lineStart < len(src) && (s.plain || s.laidOut) {
		s.growTail(src)
	} else {
		s.tail.reset(s.lineStart)
	}
}

// addLine lays out the complete line from lineStart to end, when the
// unfinished block's lines are laid out (laidOut).
func (s *mdStream) addLine(src string, end int) {
	if s.plain || s.laidOut {
		s.tailDone = append(s.tailDone, s.wrap(src, s.lineStart, end)...)
	}
}

// layOut lays out the complete lines of the unfinished block, which has
// grown too long to render (maxLiveBlock): from now on its lines are laid
// out as they arrive.
func (s *mdStream) layOut(src string) {
	s.laidOut = true
	s.tailDone = s.tailDone[:0]
	s.tail.reset(s.cut)
	for start := s.cut; start < s.lineStart; {
		end := start + strings.IndexByte(src[start:s.lineStart], '\n')
		s.tailDone = append(s.tailDone, s.wrap(src, start, end)...)
		start = end + 1
	}
	s.tail.reset(s.lineStart)
}

// maxLiveBlock is the largest unfinished block rendered as markdown each
// frame. A larger one (a long code block, a megabyte line) is shown as
// plain wrapped text, laid out as it arrives, so that a frame's cost does
// not grow with it; its rows change when it ends.
const maxLiveBlock = 16 << 10

// renderTail renders the unfinished block of a markdown stream, if it
// changed since it was last rendered.
func (s *mdStream) renderTail() {
	if !s.mdDirty {
		return
	}
	s.mdDirty = false
	block := s.src.String()[s.cut:]
	if strings.TrimSpace(block) == "" || s.r == nil || len(block) > maxLiveBlock {
		s.md = nil
		return
	}
	md := provisional(sanitizeText(block), s.inFence)
	if md == s.mdSrc && s.md != nil {
		return // what arrived is not drawn yet (an incomplete line of code)
	}
	s.md, s.mdSrc = s.r.renderProvisional(md, s.width), md
}

// segments returns the current lines, in order, as slices that must not be
// modified: rendered blocks, a separator, and the unfinished block.
func (s *mdStream) segments() [][]string {
	if !s.plain && s.src.Len()-s.cut <= maxLiveBlock {
		s.renderTail()
		segs := [][]string{s.blocks}
		if len(s.blocks) > 0 && len(s.md) > 0 {
			segs = append(segs, blankLine)
		}
		return append(segs, s.md)
	}
	tail := len(s.tailDone) + len(s.tail.frozen) + len(s.tail.live)
	segs := make([][]string, 0, 5)
	segs = append(segs, s.blocks)
	if len(s.blocks) > 0 && tail > 0 {
		segs = append(segs, blankLine)
	}
	return append(segs, s.tailDone, s.tail.frozen, s.tail.live)
}

var blankLine = []string{""}

func ansiWidth(s string) int { return ansi.StringWidth(s) }
