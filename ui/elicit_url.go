package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"latch/session"
	"latch/ui/sanitize"
)

// handleURLKey answers a server's URL request: o opens the URL in the
// browser, c copies it, and only then is the request accepted; n
// declines, Esc cancels. Nothing opens it but o, typed alone.
func (m *Model) handleURLKey(fm *formModal, msg tea.KeyMsg) tea.Cmd {
	switch {
	case isText(msg):
		return nil
	case msg.Type == tea.KeyEsc:
		m.answerForm(fm, session.ElicitCancel, nil)
	case isRune(msg, 'n', 'N'):
		m.answerForm(fm, session.ElicitDecline, nil)
	case isRune(msg, 'o', 'O'):
		if err := m.openURL(fm.ev.URL); err != nil {
			fm.note = "could not open it: " + sanitize.Line(err.Error()) + " (c copies it)"
			return nil
		}
		m.answerForm(fm, session.ElicitAccept, nil)
	case isRune(msg, 'c', 'C'):
		text, clip := sanitize.Clipboard(fm.ev.URL), m.clipboard
		m.answerForm(fm, session.ElicitAccept, nil)
		m.addNotice(fmt.Sprintf("copied the link to %s through the terminal (OSC 52)", sanitize.Line(fm.ev.Domain)))
		return func() tea.Msg { clip(text); return nil }
	}
	return nil
}

// renderURL draws a URL request: who asks and why, the domain apart and
// emphasised, the URL in full (wrapped, never cut), and the keys.
func (fm *formModal) renderURL(m *Model, w int) string {
	st := m.st.Dialog
	inner := w - 4
	var b strings.Builder
	b.WriteString(st.Title.Render(sanitize.Line(fm.ev.Server)+" asks you to open a link") + "\n\n")
	for _, l := range wrapText(fm.ev.Message, inner) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n" + "domain  " + st.Selected.Render(sanitize.Line(fm.ev.Domain)) + "\n")
	// Cut at the width, not at word breaks: a URL has none, and a break
	// at a hyphen would look like the URL's end.
	for i, l := range strings.Split(ansi.Hardwrap(sanitize.Line(fm.ev.URL), inner-8, false), "\n") {
		lead := "        "
		if i == 0 {
			lead = "url     "
		}
		b.WriteString(lead + l + "\n")
	}
	if fm.note != "" {
		b.WriteString("\n" + m.st.Chat.Error.Render(fm.note) + "\n")
	}
	b.WriteString("\n")
	for _, l := range wrapLine("o open in the browser · c copy the link · n decline · esc cancel", inner, "") {
		b.WriteString(st.Hint.Render(l) + "\n")
	}
	b.WriteString(st.Hint.Render("latch never opens it on its own"))
	for _, l := range m.boxNote(&fm.box, inner) {
		b.WriteString("\n" + l)
	}
	return m.boxStyle(&fm.box).Width(w).Render(b.String())
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
