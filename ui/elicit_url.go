package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"latch/session"
	"latch/ui/sanitize"
)

// handleURLKey answers a server's URL request: o opens the URL in the
// browser, c copies it, and only then is the request accepted; n
// declines, Esc cancels. Nothing opens it but o, typed alone. What is
// opened and copied is the event's URL as it is, the string shown: the
// session made it printable ASCII.
func (m *Model) handleURLKey(fm *formModal, msg tea.KeyMsg) tea.Cmd {
	link := fm.ev.URL
	switch {
	case isText(msg):
		return nil
	case msg.Type == tea.KeyEsc:
		m.answerForm(fm, session.ElicitCancel, nil)
	case isRune(msg, 'n', 'N'):
		m.answerForm(fm, session.ElicitDecline, nil)
	case isRune(msg, 'o', 'O'):
		if err := m.openURL(link); err != nil {
			fm.note = "could not open it: " + sanitize.Line(err.Error()) + " (c copies it)"
			return nil
		}
		m.answerForm(fm, session.ElicitAccept, nil)
	case isRune(msg, 'c', 'C'):
		clip := m.clipboard
		m.answerForm(fm, session.ElicitAccept, nil)
		label := "the link to " + sanitize.Line(fm.ev.Domain)
		return func() tea.Msg { return copiedMsg{label: label, report: clip(link)} }
	}
	return nil
}

// urlMostRows is the most rows a URL takes in its box.
const urlMostRows = 16

// renderURL draws a URL request in a box at most height rows high: who
// asks and why (four rows at most), the domain apart and emphasised, the
// URL, and the keys. The URL is shown whole, wrapped, when it fits (in
// urlMostRows at most); else its start and its end, with a row between
// saying how many characters are left out. The domain and the keys are
// always on screen.
func (fm *formModal) renderURL(m *Model, w, height int) string {
	inner := w - 4
	head, foot := fm.urlHeadFoot(m, inner, 4, true)
	need := (len(fm.ev.URL) + inner - 9) / max(inner-8, 1)
	if need > height-2-len(head)-len(foot) {
		// A short screen (50×18): no blank rows and the message in
		// two, when then the URL shows whole (it was elided there).
		h2, f2 := fm.urlHeadFoot(m, inner, 2, false)
		if need <= min(height-2-len(h2)-len(f2), urlMostRows) {
			head, foot = h2, f2
		}
	}
	rows := urlRows(fm.ev.URL, inner-8, min(max(height-2-len(head)-len(foot), 3), urlMostRows), m.st.Dialog.Hint)
	for i, l := range rows {
		lead := "        "
		if i == 0 {
			lead = "url     "
		}
		rows[i] = lead + l
	}
	body := append(append(head, rows...), foot...)
	for i, l := range body {
		body[i] = ansi.Truncate(l, inner, "…")
	}
	return m.boxStyle(&fm.box).Width(w).Render(strings.Join(body, "\n"))
}

// urlHeadFoot are the link request's rows above its URL (the title, the
// message in at most msgRows rows, the domain) and below it (a note, the
// keys, the box's note), at inner cells; with blank rows between them
// when blanks.
func (fm *formModal) urlHeadFoot(m *Model, inner, msgRows int, blanks bool) (head, foot []string) {
	st := m.st.Dialog
	blank := func(rows []string) []string {
		if blanks {
			return append(rows, "")
		}
		return rows
	}
	head = blank([]string{st.Title.Render(sanitize.Line(fm.ev.Server) + " asks you to open a link")})
	msg := wrapText(fm.ev.Message, inner)
	if len(msg) > msgRows {
		msg = append(msg[:msgRows-1], ansi.Truncate(msg[msgRows-1], inner-2, "")+" …")
	}
	head = append(blank(append(head, msg...)), "domain  "+st.Selected.Render(sanitize.Line(fm.ev.Domain)))
	if fm.note != "" {
		foot = append(blank(foot), m.st.Chat.Error.Render(fm.note))
	}
	foot = blank(foot)
	for _, l := range wrapLine("o open in the browser · c copy the link · n decline · esc cancel", inner, "") {
		foot = append(foot, st.Hint.Render(l))
	}
	foot = append(foot, st.Hint.Render("latch never opens it on its own"))
	return head, append(foot, m.boxNote(&fm.box, inner)...)
}

// urlRows cuts a URL (printable ASCII: a cell a byte) into rows of width
// cells, cut at the width, not at word breaks: a URL has none, and a
// break at a hyphen would look like the URL's end. When there are more
// than most rows, the middle ones give way to a row (styled by hint)
// saying how many characters are left out; its "…" is in no URL latch
// shows, so a server cannot fake it.
func urlRows(link string, width, most int, hint lipgloss.Style) []string {
	width = max(width, 1)
	n := (len(link) + width - 1) / width
	if n <= most {
		rows := make([]string, 0, n)
		for i := 0; i < len(link); i += width {
			rows = append(rows, link[i:min(i+width, len(link))])
		}
		return rows
	}
	top := most / 2
	bottom := most - 1 - top
	rows := make([]string, 0, most)
	for i := range top {
		rows = append(rows, link[i*width:(i+1)*width])
	}
	tail := len(link) - bottom*width
	rows = append(rows, hint.Render(fmt.Sprintf("…(%s characters left out)…", thousands(tail-top*width))))
	for i := range bottom {
		rows = append(rows, link[tail+i*width:tail+(i+1)*width])
	}
	return rows
}

// thousands writes n with a comma between each group of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// wrapText wraps outside text (already display-safe) to width, keeping
// its line breaks.
func wrapText(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapLine(sanitize.Line(para), width, "")...)
	}
	return out
}
