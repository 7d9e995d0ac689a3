package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// The permission box shows every key of the call's arguments (argview.go):
// long values elided in their middle, paths and the values a rule looks
// at whole. `f` shows every value whole (and back); ↑/↓ and PgUp/PgDn
// scroll. Neither decides anything, so neither waits for the box's guard.

// fullKey is the key that shows the whole call in the box.
const fullKey = 'f'

// toggleFull switches the box between the short and the whole view of the
// arguments on fullKey, and reports whether msg was it.
func (md *modal) toggleFull(msg tea.KeyMsg) bool {
	if !isRune(msg, fullKey) {
		return false
	}
	md.full = !md.full
	md.args, md.scroll = nil, 0
	return true
}

// layoutArgs lays the arguments out for a box w wide, once per width and
// view: the box is drawn every frame.
func (md *modal) layoutArgs(m *Model, w int) []string {
	if md.args != nil && md.argsWidth == w {
		return md.args
	}
	c := md.card
	view := ArgView{Full: md.full, Whole: m.perms.ArgsLookedAt(c.server, c.tool)}
	lines, elided := ArgLines(c.args, view)
	md.args, md.argsWidth, md.elided = nil, w, elided
	for _, a := range lines {
		md.args = append(md.args, wrapLine(a, w-6, "  ")...)
	}
	return md.args
}

// argsHint is the hint under the arguments: which lines show, and how to
// see the rest; "" when everything shows whole. In the save step (A),
// ↑/↓ choose what to save and f does nothing: it says so, and that Esc
// goes back to where they scroll.
func (md *modal) argsHint(first, end, total int) string {
	whole := ""
	switch {
	case md.full:
		whole = fmt.Sprintf("%c short view", fullKey)
	case md.elided > 0:
		whole = fmt.Sprintf("%c every value whole (%d elided)", fullKey, md.elided)
	}
	if md.save != nil {
		switch {
		case end-first < total:
			return fmt.Sprintf("  lines %d–%d of %s (↑/↓ choose what to save · esc back to scroll them)", first+1, end, thousands(total))
		case whole != "":
			return "  esc back, then " + whole
		}
		return ""
	}
	switch {
	case end-first < total && whole != "":
		return fmt.Sprintf("  lines %d–%d of %s (↑/↓ scroll · %s)", first+1, end, thousands(total), whole)
	case end-first < total:
		return fmt.Sprintf("  lines %d–%d of %s (↑/↓ scroll)", first+1, end, thousands(total))
	case whole != "":
		return "  " + whole
	}
	return ""
}
