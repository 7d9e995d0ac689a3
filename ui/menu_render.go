package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// completionPopup draws the candidates for the input, or "": as the open
// menu (the selected one marked, scrolled to it) or as a list of what Tab
// completes.
func (m *Model) completionPopup() string {
	hits := m.popupItems()
	if len(hits) == 0 {
		return ""
	}
	st := m.st.Menu
	_, sel, open := m.menuSelection()
	top := 0
	if open {
		top = min(m.menu.top, max(len(hits)-menuRows, 0))
		if sel < top || sel >= top+menuRows {
			top = max(sel-menuRows+1, 0)
		}
	}
	shown := hits[top:min(top+menuRows, len(hits))]
	// Of a word in a longer line (@SERVER:URI, a prompt's argument) the
	// rows show the word.
	if cut := m.wordStart(m.input.value()); cut > 0 {
		base := m.input.value()[:cut]
		trimmed := make([]candidate, len(shown))
		for i, h := range shown {
			trimmed[i] = h
			if t, ok := strings.CutPrefix(h.text, base); ok && t != "" {
				trimmed[i].text = t
			}
		}
		shown = trimmed
	}
	// The box sits one column in and must end on screen; a candidate
	// takes at most two thirds of it, its description the rest.
	fit := max(m.width-1-st.Box.GetHorizontalFrameSize(), 1)
	w := 0
	for _, h := range shown {
		w = max(w, ansi.StringWidth(h.text))
	}
	w = min(w, max(fit*2/3, 1))
	var lines []string
	for i, h := range shown {
		lines = append(lines, m.popupLine(h, w, fit, open, top+i == sel))
	}
	if more := len(hits) - top - len(shown); top > 0 || more > 0 {
		lines = append(lines, st.Hint.Render(moreMarker(top, more)))
	}
	hint := "tab completes"
	if open {
		hint = "↑↓ move · enter takes · esc closes"
	}
	lines = append(lines, st.Hint.Render(hint))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, fit, "…")
	}
	return st.Box.Render(strings.Join(lines, "\n"))
}

// popupLine is one candidate's row: its text in a column w wide, its
// description after it, the whole fit wide at most; in the open menu the
// selected one is marked.
func (m *Model) popupLine(h candidate, w, fit int, open, selected bool) string {
	st := m.st.Menu
	mark := ""
	if open {
		mark = "  "
		if selected {
			mark = "› "
		}
	}
	text := ansi.Truncate(h.text, w, "…")
	row := mark + text
	if h.help != "" {
		row += strings.Repeat(" ", w-ansi.StringWidth(text)) + "  " + h.help
	}
	row = ansi.Truncate(row, fit, "…")
	if selected && open {
		return st.Selected.Render(row)
	}
	if n := len(mark) + len(text); n < len(row) {
		return st.Item.Render(row[:n]) + st.Help.Render(row[n:])
	}
	return st.Item.Render(row)
}

// moreMarker says how many candidates are above and below those shown.
func moreMarker(above, below int) string {
	switch {
	case above == 0:
		return "… " + strconv.Itoa(below) + " more"
	case below == 0:
		return "… " + strconv.Itoa(above) + " above"
	}
	return "… " + strconv.Itoa(above) + " above, " + strconv.Itoa(below) + " more"
}

// wordStart is where, in the input v, the word being completed starts
// when it is an @ word or a prompt's argument; else 0: a command and its
// arguments are shown whole.
func (m *Model) wordStart(v string) int {
	if w, ok := atWord(v); ok {
		return len(v) - len(w) - 1
	}
	if strings.HasPrefix(v, "/") {
		if pl, ok := m.readPromptLine(v); ok {
			return len(pl.base)
		}
	}
	return 0
}

// coverRows draws box one column in over the rows of bg from row y on,
// covering them whole: what the chat had beside the box is blanked, so
// the chat scrolling under the popup changes nothing on its rows.
func coverRows(bg, box string, y int) string {
	rows := strings.Split(bg, "\n")
	for i, l := range strings.Split(box, "\n") {
		if y+i < 0 || y+i >= len(rows) {
			continue
		}
		row := " " + l
		if pad := ansi.StringWidth(rows[y+i]) - ansi.StringWidth(row); pad > 0 {
			row += strings.Repeat(" ", pad)
		}
		rows[y+i] = row
	}
	return strings.Join(rows, "\n")
}
