package ui

import (
	"strings"

	"latch/themes"
)

// chatPane is the scrolling conversation. It lays out only what is on
// screen: drawing walks from the bottom (or from the top anchor when the
// user has scrolled up) and stops once the pane is full, so the cost of a
// frame does not grow with the length of the chat.
type chatPane struct {
	st      *themes.Styles
	opts    *viewOpts
	md      *mdRenderer
	entries []*entry
	width   int
	height  int

	// follow keeps the newest line at the bottom. When the user scrolls up,
	// follow is off and the view is anchored at top: entry index and line.
	follow  bool
	topE    int
	topLine int

	view  string
	dirty bool

	// The entries drawn by the last render, first and last.
	firstShown, lastShown int

	cache layoutCache // which entries hold a cached layout
}

func newChatPane(st *themes.Styles, md *mdRenderer, opts *viewOpts) *chatPane {
	return &chatPane{st: st, md: md, opts: opts, follow: true, dirty: true}
}

// relayout drops every entry's cached layout (after a view option or the
// theme changed); entries are laid out again lazily, as they are seen.
func (p *chatPane) relayout() {
	for _, e := range p.entries {
		e.invalidate()
		if e.card != nil {
			e.card.argsLines = nil // styled by the old theme
		}
	}
	p.dirty = true
}

func (p *chatPane) setSize(w, h int) {
	if w != p.width || h != p.height {
		p.width, p.height = w, h
		p.dirty = true
	}
}

func (p *chatPane) add(e *entry) *entry {
	p.entries = append(p.entries, e)
	p.dirty = true
	return e
}

func (p *chatPane) clear() {
	p.entries = nil
	p.cache.reset()
	p.follow, p.topE, p.topLine = true, 0, 0
	p.dirty = true
}

// lines returns entry i's lines at the pane width, flattened only when the
// entry is made of several segments.
func (p *chatPane) lines(i int) [][]string {
	e := p.entries[i]
	laid := e.stale(p.width)
	segs := e.segments(p.st, p.md, p.width, p.opts)
	if laid {
		p.cache.added(i, e)
	}
	return segs
}

func count(segs [][]string) int {
	n := 0
	for _, s := range segs {
		n += len(s)
	}
	return n
}

// line returns line k of a segmented entry.
func lineAt(segs [][]string, k int) string {
	for _, s := range segs {
		if k < len(s) {
			return s[k]
		}
		k -= len(s)
	}
	return ""
}

// bottomAnchor finds the top line when the last line sits at the bottom.
func (p *chatPane) bottomAnchor() (int, int) {
	need := p.height
	for i := len(p.entries) - 1; i >= 0; i-- {
		n := count(p.lines(i))
		if n >= need {
			return i, n - need
		}
		need -= n
	}
	return 0, 0
}

// scroll moves the view by n lines (negative is up).
func (p *chatPane) scroll(n int) {
	if len(p.entries) == 0 || n == 0 {
		return
	}
	if p.follow {
		if n > 0 {
			return
		}
		p.topE, p.topLine = p.bottomAnchor()
		p.follow = false
	}
	e, l := p.topE, p.topLine+n
	for l < 0 {
		if e == 0 {
			l = 0
			break
		}
		e--
		l += count(p.lines(e))
	}
	for e < len(p.entries) {
		c := count(p.lines(e))
		if l < c {
			break
		}
		l -= c
		e++
	}
	p.topE, p.topLine = e, l
	if p.restFits() {
		p.follow = true
	}
	p.dirty = true
}

// restFits reports whether everything from the anchor down fits on screen,
// in which case the view follows the bottom again.
func (p *chatPane) restFits() bool {
	rest := -p.topLine
	for i := p.topE; i < len(p.entries); i++ {
		rest += count(p.lines(i))
		if rest > p.height {
			return false
		}
	}
	return true
}

// showEntry scrolls so that entry i starts at the top of the pane (or the
// view follows the bottom, when everything from it on fits).
func (p *chatPane) showEntry(i int) {
	if i < 0 || i >= len(p.entries) {
		return
	}
	p.follow, p.topE, p.topLine = false, i, 0
	if p.restFits() {
		p.follow = true
	}
	p.dirty = true
}

func (p *chatPane) gotoBottom() {
	if !p.follow {
		p.follow = true
		p.dirty = true
	}
}

// render returns the visible lines, height of them, padded.
func (p *chatPane) render() string {
	if !p.dirty {
		return p.view
	}
	p.dirty = false
	if p.height <= 0 {
		p.view = ""
		return ""
	}
	if !p.follow && p.restFits() {
		p.follow = true
	}
	out := make([]string, 0, p.height)
	p.firstShown, p.lastShown = -1, -1
	if p.follow {
		// Collect from the bottom, then reverse the order of chunks.
		var chunks [][]string
		need := p.height
		for i := len(p.entries) - 1; i >= 0 && need > 0; i-- {
			segs := p.lines(i)
			n := count(segs)
			from := 0
			if n > need {
				from = n - need
			}
			chunk := make([]string, 0, n-from)
			for k := from; k < n; k++ {
				chunk = append(chunk, lineAt(segs, k))
			}
			chunks = append(chunks, chunk)
			need -= len(chunk)
			if p.lastShown < 0 {
				p.lastShown = i
			}
			p.firstShown = i
		}
		for i := len(chunks) - 1; i >= 0; i-- {
			out = append(out, chunks[i]...)
		}
	} else {
		for i, skip := p.topE, p.topLine; i < len(p.entries) && len(out) < p.height; i, skip = i+1, 0 {
			if p.firstShown < 0 {
				p.firstShown = i
			}
			p.lastShown = i
			segs := p.lines(i)
			for k, n := skip, count(segs); k < n && len(out) < p.height; k++ {
				out = append(out, lineAt(segs, k))
			}
		}
	}
	for len(out) < p.height {
		out = append(out, "")
	}
	p.view = strings.Join(out, "\n")
	p.cache.trim(p.entries, p.firstShown, p.lastShown)
	return p.view
}

// scrolledUp reports whether the user is reading history.
func (p *chatPane) scrolledUp() bool { return !p.follow }
