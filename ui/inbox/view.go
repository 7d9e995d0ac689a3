package inbox

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"latch/ui/sanitize"
)

// wideAt is the width from which the selected call's arguments are drawn
// beside the list rather than below it.
const wideAt = 110

// footer is the keys' line.
const footer = "↑↓ select · space mark · a like this · y approve · n reject · / filter · pgup/pgdn args · f full · L notes · q quit"

// View draws the screen: a head line, the list, the selected call (beside
// or below), the notes of the last decisions, and the keys.
func (m *Model) View() string {
	w, h := max(m.w, 20), max(m.h, 8)
	if m.all.open {
		return m.notesView(w, h)
	}
	head := m.headLine(w)
	foot := wrapWords(footer, w)
	if m.filtering {
		foot = []string{fit("filter (client, tool or server): "+sanitize.Line(m.filter)+"█ · enter keeps it · esc drops it", w)}
	}
	for i, l := range foot {
		foot[i] = m.st.Dialog.Hint.Render(l)
	}
	// The notes get what the list and the call leave, the newest first
	// (a step's summary at least); the keys are always under them. The
	// list keeps a row for each call, up to half the rows there are, and
	// the call below it its first lines (minPane): a long summary
	// leaves out older notes first, not calls.
	avail := h - 1 - len(foot)
	listH := max(min(len(m.visible())+1, avail/2), 2)
	need := listH
	if w < wideAt {
		need += 1 + minPane // the separator, and the call's first lines
	}
	notes := m.noteLines(w, avail-max(need, minBody))
	body := max(avail-len(notes), minBody)
	var rows []string
	if w >= wideAt {
		rows = m.wide(w, body)
	} else {
		rows = m.narrow(w, body, min(listH, max(body-1-minPane, 2)))
	}
	// A pane longer than its rows (a call's fields on a short screen)
	// loses its end, not the notes and keys under it.
	rows = rows[:min(len(rows), body)]
	out := append([]string{head}, rows...)
	out = append(out, notes...)
	out = append(out, foot...)
	if len(out) > h {
		out = out[:h]
	}
	return strings.Join(out, "\n")
}

// headLine says how many calls wait, how many are marked, the filter and
// the decisions on their way.
func (m *Model) headLine(w int) string {
	n := len(m.calls)
	s := fmt.Sprintf("latch inbox · %d %s waiting", n, plural(n, "call", "calls"))
	if k := len(m.marked); k > 0 {
		s += fmt.Sprintf(" · %d marked", k)
	}
	if m.filter != "" {
		s += fmt.Sprintf(" · filter %q: %d shown", sanitize.Line(m.filter), len(m.visible()))
	}
	if m.busy > 0 {
		s += fmt.Sprintf(" · deciding %d…", m.busy)
	}
	if !m.loaded {
		s += " · reading…"
	}
	return m.st.Status.Bar.Render(fit(s, w))
}

// minBody is the fewest rows the list and the selected call get.
const minBody = 3

// noteLines are the lines of the last decisions and of a failed read, in
// at most room rows: the newest notes whole, the older ones left out when
// they do not fit, and then the last row says how many were (L lists
// every one).
func (m *Model) noteLines(w, room int) []string {
	var out []string
	if m.err != "" {
		out = append(out, m.st.Chat.Error.Render(fit("cannot read the waiting calls: "+m.err, w)))
	}
	notes := m.fitNotes(w, room-len(out))
	left := len(m.notes) - len(notes)
	if left > 0 {
		notes = m.fitNotes(w, room-len(out)-1) // a row to say so
		left = len(m.notes) - len(notes)
	}
	for i := len(notes) - 1; i >= 0; i-- {
		for _, l := range notes[i] {
			out = append(out, m.st.Chat.Notice.Render(l))
		}
	}
	if left > 0 {
		said := fmt.Sprintf("%d older %s not shown here: L lists every note", left, plural(left, "note", "notes"))
		out = append(out, m.st.Dialog.Hint.Render(fit(said, w)))
	}
	return out
}

// fitNotes are the newest notes, wrapped to w, newest first, that fit in
// room rows; the newest at least, whole.
func (m *Model) fitNotes(w, room int) [][]string {
	var notes [][]string
	n := 0
	for i := len(m.notes) - 1; i >= 0; i-- {
		lines := wrapWords(m.notes[i], w)
		if n+len(lines) > room && len(notes) > 0 {
			break
		}
		notes = append(notes, lines)
		n += len(lines)
	}
	return notes
}

// minPane is the fewest rows the selected call gets below the list: its
// id, client and tool.
const minPane = 3

// narrow lays the list, in listH rows, over the selected call, in h rows
// in all.
func (m *Model) narrow(w, h, listH int) []string {
	out := m.list(w, listH)
	out = append(out, m.st.Input.Separator.Render(strings.Repeat("─", w)))
	return append(out, m.pane(w, h-listH-1)...)
}

// wide lays the list and the selected call side by side, in h rows.
func (m *Model) wide(w, h int) []string {
	right := w * 2 / 5
	left := w - right - 3
	l, r := m.list(left, h), m.pane(right, h)
	out := make([]string, h)
	for i := range out {
		a, b := "", ""
		if i < len(l) {
			a = l[i]
		}
		if i < len(r) {
			b = r[i]
		}
		out[i] = a + strings.Repeat(" ", max(left-lipgloss.Width(a), 0)) + m.st.Input.Separator.Render(" │ ") + b
	}
	return out
}

// list draws the column heads and the visible calls, keeping the
// selected one in view, in h rows.
func (m *Model) list(w, h int) []string {
	v := m.visible()
	out := []string{m.st.Dialog.Title.Render(m.row(w, "", "CLIENT", "TOOL", "AGE", "EXPIRES", "PARKED BY", "ARGUMENTS"))}
	if len(v) == 0 {
		msg := "no call waits for approval"
		if m.filter != "" && len(m.calls) > 0 {
			msg = "no waiting call matches the filter"
		}
		return append(out, m.st.Dialog.Hint.Render(fit("  "+msg, w)))
	}
	_, sel, _ := m.selected()
	rows := max(h-1, 1)
	first := 0
	if sel >= rows {
		first = sel - rows + 1
	}
	now := m.o.Now()
	for i := first; i < len(v) && i < first+rows; i++ {
		c := v[i]
		lead := "  "
		if m.marked[key(c)] {
			lead = " *"
		}
		if i == sel {
			lead = ">" + lead[1:]
		}
		line := m.row(w, lead, clientName(c), sanitize.Line(c.Tool), age(now.Sub(c.Parked)), expiry(c, now), parkedBy(c), m.argLine(c))
		if i == sel {
			line = m.st.Dialog.Selected.Render(line)
		} else {
			line = m.st.Dialog.Item.Render(line)
		}
		out = append(out, line)
	}
	if more := len(v) - first - rows; more > 0 && len(out) > 1 {
		out[len(out)-1] = m.st.Dialog.Hint.Render(fit(fmt.Sprintf("  … %d more below", more+1), w))
	}
	return out
}

// row lays out one line of the list's columns in w cells: the arguments
// take what is left, and go when less than 8 cells are.
func (m *Model) row(w int, lead, client, tool, age, exp, by, args string) string {
	s := fmt.Sprintf("%-2s %s %s %s %s %s", lead, cell(client, 12), cell(tool, 20), cell(age, 5), cell(exp, 9), cell(by, 12))
	if left := w - lipgloss.Width(s) - 1; left >= 8 {
		s += " " + ansi.Truncate(args, left, "…")
	}
	return fit(s, w)
}

// argLine is a call's arguments on one line, for the list: laid out once
// a call.
func (m *Model) argLine(c Call) string {
	k := key(c)
	if l, ok := m.oneLine[k]; ok {
		return l
	}
	l := fmt.Sprintf("%d keys", len(c.Arguments))
	if m.o.Line != nil {
		l = m.o.Line(c.ParkedCall)
	}
	m.oneLine[k] = l
	return l
}

// cell is s cut (with …) or padded to n cells.
func cell(s string, n int) string {
	s = ansi.Truncate(s, n, "…")
	return s + strings.Repeat(" ", max(n-lipgloss.Width(s), 0))
}

// fit is s cut to w cells, with … when cut.
func fit(s string, w int) string { return ansi.Truncate(s, w, "…") }

// wrap breaks s into lines of at most w cells.
func wrap(s string, w int) []string {
	return strings.Split(ansi.Hardwrap(s, max(w, 1), true), "\n")
}

// wrapWords breaks s into lines of at most w cells at its spaces (and
// its newlines); a word longer than w is cut. Unlike ansi.Wrap it never
// breaks after a hyphen: a session's name, a call's id or a rule's origin
// stays whole on its line where it fits. The spaces where a line breaks
// are dropped; those that start s are kept.
func wrapWords(s string, w int) []string {
	w = max(w, 1)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		var line strings.Builder
		lw, spaces, first := 0, 0, true
		for i, word := range strings.Split(para, " ") {
			if i > 0 {
				spaces++
			}
			if word == "" {
				continue
			}
			ww := ansi.StringWidth(word)
			if lw+spaces+ww > w && !(first && lw == 0) {
				if lw > 0 {
					out = append(out, line.String())
					line.Reset()
				}
				lw, spaces = 0, 0
			}
			first = false
			line.WriteString(strings.Repeat(" ", spaces))
			lw += spaces
			spaces = 0
			for lw+ww > w { // a word longer than the line: cut
				head := ansi.Truncate(word, max(w-lw, 1), "")
				line.WriteString(head)
				out = append(out, line.String())
				line.Reset()
				word = ansi.TruncateLeft(word, ansi.StringWidth(head), "")
				lw, ww = 0, ansi.StringWidth(word)
			}
			line.WriteString(word)
			lw += ww
		}
		out = append(out, line.String())
	}
	return out
}

// clientName is who made the call: the gateway's client, or "(chat)".
func clientName(c Call) string {
	if c.Chat() {
		return "(chat)"
	}
	return sanitize.Line(c.Client)
}

// parkedBy is what put the call to a person: the rule, else the mode.
func parkedBy(c Call) string {
	switch {
	case c.Rule != "":
		return "rule " + sanitize.Line(c.Rule)
	case c.Mode != "":
		return sanitize.Line(c.Mode) + " mode"
	}
	return "-"
}

// expiry is when a gateway's call stops waiting.
func expiry(c Call, now time.Time) string {
	switch {
	case c.Chat():
		return "-"
	case c.Stopped:
		return "stopped"
	case !c.Expires.After(now):
		return "expired"
	}
	return "in " + age(c.Expires.Sub(now))
}

// age is d to the second, or to the minute past an hour.
func age(d time.Duration) string {
	d = max(d, 0)
	if d >= time.Hour {
		return strings.TrimSuffix(d.Truncate(time.Minute).String(), "0s")
	}
	return d.Truncate(time.Second).String()
}
