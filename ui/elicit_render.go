package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"latch/session"
	"latch/ui/sanitize"
)

// formHint is the form's key line.
const formHint = "tab/↑/↓ move · type to edit · space toggles · ←/→ choose · " +
	"enter on the last field or ctrl+s sends · ctrl+d declines · esc cancels"

// render draws the request for a screen of width × height.
func (fm *formModal) render(m *Model, width, height int) string {
	w := min(width-4, 100)
	if fm.url() {
		return fm.renderURL(m, w, height)
	}
	st := m.st.Dialog
	inner := w - 4
	head, foot := fm.headFoot(m, inner, 4, true)
	if height-2-len(head)-len(foot)-1 < minFormRows {
		// A short screen (50×18): no blank rows and the message in two,
		// so that the fields keep minFormRows and the keys and the
		// bottom border stay on screen (they were cut off).
		head, foot = fm.headFoot(m, inner, 2, false)
	}
	rows, first, last := fm.fieldRows(m, inner)
	avail := max(height-2-len(head)-len(foot)-1, minFormRows)
	fm.scroll = min(fm.scroll, first)
	if last >= fm.scroll+avail {
		fm.scroll = last - avail + 1
	}
	fm.scroll = max(min(fm.scroll, len(rows)-avail), 0)
	end := min(fm.scroll+avail, len(rows))
	body := append(head, rows[fm.scroll:end]...)
	if fm.scroll > 0 || end < len(rows) {
		body = append(body, st.Hint.Render("fields: rows "+strconv.Itoa(fm.scroll+1)+"–"+strconv.Itoa(end)+
			" of "+strconv.Itoa(len(rows))+" (tab moves)"))
	}
	body = append(body, foot...)
	for i, l := range body {
		body[i] = ansi.Truncate(l, inner, "…")
	}
	return m.boxStyle(&fm.box).Width(w).Render(strings.Join(body, "\n"))
}

// minFormRows is the fewest rows the form's fields get.
const minFormRows = 3

// headFoot are the form's rows above its fields (the title, the message
// in at most msgRows rows) and below them (the keys, the box's note), at
// inner cells; with blank rows between them when blanks.
func (fm *formModal) headFoot(m *Model, inner, msgRows int, blanks bool) (head, foot []string) {
	st := m.st.Dialog
	head = append(head, st.Title.Render(sanitize.Line(fm.ev.Server)+" asks you to fill in a form"))
	if blanks {
		head = append(head, "")
	}
	msg := wrapText(fm.ev.Message, inner)
	if len(msg) > msgRows {
		msg = append(msg[:msgRows-1], ansi.Truncate(msg[msgRows-1], inner-2, "")+" …")
	}
	head = append(head, msg...)
	if blanks {
		head = append(head, "")
		foot = append(foot, "")
	}
	for _, l := range wrapLine(formHint, inner, "") {
		foot = append(foot, st.Hint.Render(l))
	}
	return head, append(foot, m.boxNote(&fm.box, inner)...)
}

// fieldRows lays out every field: its label and value, what is wrong with
// it, its options (a multiselect), its description. It returns the rows
// and the first and last row of the focused field.
func (fm *formModal) fieldRows(m *Model, inner int) (rows []string, first, last int) {
	lw := 0
	for _, f := range fm.ev.Fields {
		lw = max(lw, ansi.StringWidth(sanitize.Line(f.Label()))+2)
	}
	lw = min(lw, inner/3)
	for i, f := range fm.ev.Fields {
		focused := i == fm.focus
		if focused {
			first = len(rows)
		}
		mark := "  "
		if focused {
			mark = m.st.Dialog.Selected.Render("›") + " "
		}
		label := sanitize.Line(f.Label())
		if f.Required {
			label += " *"
		}
		label = ansi.Truncate(label, lw, "…")
		label += strings.Repeat(" ", max(lw-ansi.StringWidth(label), 0))
		rows = append(rows, mark+label+" "+fm.valueText(m, i, focused && fm.box.focused()))
		if p := fm.errs[f.Name]; p != "" {
			rows = append(rows, strings.Repeat(" ", lw+3)+m.st.Chat.Error.Render("✗ "+sanitize.Line(p)))
		}
		if f.Kind == session.FieldMulti {
			rows = append(rows, fm.optionRows(m, i, focused, lw+3)...)
		}
		if d := sanitize.Line(f.Description); d != "" {
			desc := wrapLine(d, max(inner-lw-3, 10), strings.Repeat(" ", lw+3))
			if len(desc) > 2 {
				desc = append(desc[:1], ansi.Truncate(desc[1], inner-1, "…")+"…")
			}
			for _, l := range desc {
				rows = append(rows, m.st.Dialog.Hint.Render(l))
			}
		}
		if focused {
			last = len(rows) - 1
		}
	}
	return rows, first, last
}

// valueText is a field's value as the form shows it; focused: with the
// cursor (the form has the keys, and this field the cursor).
func (fm *formModal) valueText(m *Model, i int, focused bool) string {
	f, v := fm.ev.Fields[i], fm.vals[i]
	hint := m.st.Dialog.Hint
	switch f.Kind {
	case session.FieldBoolean:
		if v.on {
			return "[x] yes"
		}
		return "[ ] no"
	case session.FieldSelect:
		choice := "none"
		if v.pick >= 0 {
			choice = optionLabel(f.Options[v.pick])
		}
		return "‹ " + choice + " › " + hint.Render("("+strconv.Itoa(v.pick+1)+" of "+strconv.Itoa(len(f.Options))+")")
	case session.FieldMulti:
		n := 0
		for _, on := range v.picked {
			if on {
				n++
			}
		}
		return hint.Render(strconv.Itoa(n) + " of " + strconv.Itoa(len(f.Options)) + " picked")
	}
	text := sanitize.Line(v.text)
	if f.Secret {
		text = strings.Repeat("•", len([]rune(v.text)))
	}
	if focused {
		text += "▏"
	}
	if p := placeholder(f); v.text == "" && p != "" {
		if focused {
			text += " "
		}
		text += hint.Render(p)
	}
	return text
}

// optionRows are a multiselect's options, one a row, ticked or not.
func (fm *formModal) optionRows(m *Model, i int, focused bool, indent int) []string {
	f, v := fm.ev.Fields[i], fm.vals[i]
	out := make([]string, len(f.Options))
	for j, o := range f.Options {
		box := "[ ] "
		if v.picked[j] {
			box = "[x] "
		}
		row := box + optionLabel(o)
		if focused && j == v.cursor {
			row = m.st.Dialog.Selected.Render("›" + row)
		} else {
			row = " " + row
		}
		out[j] = strings.Repeat(" ", indent) + row
	}
	return out
}

// optionLabel is an option's title, else its value.
func optionLabel(o session.FormOption) string {
	if o.Title != "" {
		return sanitize.Line(o.Title)
	}
	return sanitize.Line(o.Value)
}

// placeholder says what an empty text field takes.
func placeholder(f session.FormField) string {
	var parts []string
	switch f.Kind {
	case session.FieldNumber:
		parts = append(parts, "a number")
	case session.FieldInteger:
		parts = append(parts, "a whole number")
	}
	if h := session.FormatHint(f.Format); h != "" {
		parts = append(parts, h)
	}
	if f.Minimum != nil && f.Maximum != nil {
		parts = append(parts, strconv.FormatFloat(*f.Minimum, 'f', -1, 64)+"–"+strconv.FormatFloat(*f.Maximum, 'f', -1, 64))
	}
	if f.Secret {
		parts = append(parts, "hidden as you type")
	}
	if len(parts) == 0 {
		return ""
	}
	return sanitize.Line(strings.Join(parts, ", "))
}
