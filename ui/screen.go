package ui

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// screen draws frames on the terminal itself, writing only what changed
// since the frame before: rows that did not change are not written, blank
// cells carry no colour codes (tidyRow; the rest of a row is cleared
// with EL), and when the chat moved up under a growing reply the terminal
// scrolls it (a scroll region and SU) instead of every row being written
// again. On a terminal that said it supports synchronized output (DEC mode
// 2026; main asks with DECRQM before Bubble Tea starts) each frame is
// bracketed by it, so the terminal never shows half a frame.
//
// Bubble Tea's own renderer rewrites every row whose text changed, which,
// for a chat that scrolls by a line, is every row. The model draws through
// a screen when it has an output (Options.Output) and gives Bubble Tea an
// empty view. A screen is used from the Bubble Tea event loop only (View
// and Update), so its writes are ordered with the program's own.
type screen struct {
	out           io.Writer
	width, height int
	shown         []string          // the rows on the terminal, trimmed; nil: unknown
	last          string            // the frame last drawn
	tidy          map[string]string // the last frame's rows, tidied (tidyRow)
	sync          bool              // the terminal supports synchronized output
	buf           bytes.Buffer
	stats         screenStats
}

// screenStats count what a screen wrote.
type screenStats struct {
	frames, repaints, scrolls, rows int
	bytes                           int64
}

func newScreen(out io.Writer, sync bool) *screen { return &screen{out: out, sync: sync} }

// syncOn and syncOff bracket a frame in synchronized output (DEC private
// mode 2026): the terminal shows it whole, at once.
const (
	syncOn  = "\x1b[?2026h"
	syncOff = "\x1b[?2026l"
)

// resize sets the terminal's size; the next frame is drawn whole.
func (s *screen) resize(w, h int) {
	s.width, s.height = w, h
	s.invalidate()
}

// invalidate forgets what is on the terminal: the next frame clears it and
// draws every row.
func (s *screen) invalidate() {
	s.shown, s.last = nil, ""
}

// draw puts frame on the terminal. region is the rows (first, last) that
// scroll together: the chat between the status line and the hint line.
func (s *screen) draw(frame string, region [2]int) {
	if s.width <= 0 || s.height <= 0 || (frame == s.last && s.shown != nil) {
		return
	}
	s.last = frame
	rows := strings.Split(frame, "\n")
	if len(rows) > s.height {
		rows = rows[:s.height]
	}
	for len(rows) < s.height {
		rows = append(rows, "")
	}
	tidy := make(map[string]string, len(rows))
	for i, r := range rows {
		t, ok := s.tidy[r]
		if !ok {
			t = tidyRow(ansi.Truncate(r, s.width, ""))
		}
		tidy[r], rows[i] = t, t
	}
	s.tidy = tidy
	s.buf.Reset()
	if s.sync {
		s.buf.WriteString(syncOn)
	}
	s.paint(rows, region)
	if s.sync {
		s.buf.WriteString(syncOff)
	}
	s.shown = rows
	s.stats.frames++
	s.stats.bytes += int64(s.buf.Len())
	_, _ = s.out.Write(s.buf.Bytes())
}

// paint writes the rows that differ from what is shown, scrolling the
// region first when that saves rewriting it.
func (s *screen) paint(rows []string, region [2]int) {
	old := s.shown
	if old == nil {
		s.stats.repaints++
		s.buf.WriteString(ansi.CursorHomePosition + ansi.EraseEntireScreen)
		old = make([]string, len(rows))
	} else if k := scrollBy(old, rows, region); k > 0 {
		s.scroll(old, region, k)
	}
	for i, r := range rows {
		if r == old[i] {
			continue
		}
		s.stats.rows++
		if col, style, rest, ok := rowGrew(old[i], r); ok {
			// Only the end changed (a growing line of a reply): the cells
			// before it stay, and the rest is written from there.
			fmt.Fprintf(&s.buf, "\x1b[%d;%dH", i+1, col+1)
			s.buf.WriteString(style)
			s.buf.WriteString(rest)
		} else {
			fmt.Fprintf(&s.buf, "\x1b[%dH", i+1)
			s.buf.WriteString(r)
		}
		if ansi.StringWidth(r) < s.width {
			s.buf.WriteString(ansi.EraseLineRight)
		}
	}
}

// scroll moves the region's rows up by k on the terminal (and in old):
// a scroll region of those rows, k lines scrolled up, the region reset.
func (s *screen) scroll(old []string, region [2]int, k int) {
	s.stats.scrolls++
	top, bottom := region[0], region[1]
	fmt.Fprintf(&s.buf, "\x1b[%d;%dr\x1b[%dS\x1b[r", top+1, bottom+1, k)
	copy(old[top:], old[top+k:bottom+1])
	for i := bottom - k + 1; i <= bottom; i++ {
		old[i] = ""
	}
}

// scrollBy is how far the region's rows moved up from old to rows: the
// shift that leaves the most rows already in place, if it beats not
// scrolling by more than a couple of rows; 0 otherwise.
func scrollBy(old, rows []string, region [2]int) int {
	top, bottom := region[0], region[1]
	if top < 0 || bottom >= len(rows) || bottom >= len(old) || bottom-top < 2 {
		return 0
	}
	same := func(k int) int {
		n := 0
		for i := top; i+k <= bottom; i++ {
			if rows[i] == old[i+k] && rows[i] != "" {
				n++
			}
		}
		return n
	}
	best, bestN := 0, same(0)+2
	for k := 1; k < bottom-top; k++ {
		if n := same(k); n > bestN {
			best, bestN = k, n
		}
	}
	return best
}

// minKept is the fewest bytes a row must keep of the row before it for
// only its end to be written (a cursor move and a style cost about as much).
const minKept = 16

// rowGrew reports whether the tidied row r starts with the cells of the
// tidied row old (bar its closing reset): then only r's end needs writing,
// from column col (0-based) on, in style (the codes that set the style in
// effect there, from the default the terminal is in between rows) then
// rest. A row with a hyperlink is always written whole.
func rowGrew(old, r string) (col int, style, rest string, ok bool) {
	if len(old) < minKept || strings.Contains(old, "\x1b]") || strings.Contains(r, "\x1b]") {
		return 0, "", "", false
	}
	var st sgr
	state := byte(0)
	cut, cutCol, cutSt := -1, 0, sgr{}
	for i := 0; i < len(r); {
		seq, width, n, next := ansi.DecodeSequence(r[i:], state, nil)
		if i+n > len(old) || r[i:i+n] != old[i:i+n] {
			break
		}
		state = next
		i += n
		col += width
		if width == 0 && strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") {
			st.apply(seq[2 : len(seq)-1])
			continue
		}
		if width > 0 {
			cut, cutCol, cutSt = i, col, st
		}
	}
	// Every visible cell of old must be kept: old is r's start, up to
	// its closing reset.
	if cut < minKept || ansi.StringWidth(old) != cutCol {
		return 0, "", "", false
	}
	return cutCol, sgr{}.to(cutSt), r[cut:], true
}
