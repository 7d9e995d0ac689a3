package ui

import (
	"latch/ui/sanitize"

	"fmt"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// toggleThinking shows or hides the thinking of one reply: the newest one
// on screen that has thinking, else the newest in the chat.
func (m *Model) toggleThinking() {
	pick := func(from, to int) *entry {
		for i := min(to, len(m.chat.entries)-1); i >= from && i >= 0; i-- {
			if e := m.chat.entries[i]; e.kind == assistantEntry && e.done && strings.TrimSpace(e.thinking) != "" {
				return e
			}
		}
		return nil
	}
	e := pick(m.chat.firstShown, m.chat.lastShown)
	if e == nil {
		e = pick(0, len(m.chat.entries)-1)
	}
	if e == nil {
		return
	}
	e.thinkOpen = !e.thinkOpen
	e.invalidate()
	m.chat.dirty = true
	m.dirty = true
}

// relayoutAll lays every entry out again after a view toggle.
func (m *Model) relayoutAll() {
	m.chat.relayout()
	m.dirty = true
}

// copiedMsg reports a copy to the clipboard: the last answer's characters
// (ctrl+y), or what copy mode copied and its lines, or a link (label);
// and how sure it is to have arrived.
type copiedMsg struct {
	n      int
	what   string
	lines  int
	label  string
	report copyReport
}

// copyLast puts the last answer on the clipboard through the terminal
// (OSC 52). latch writes this sequence itself; text from a model or
// server never can, since the sanitizer neutralises every escape.
func (m *Model) copyLast() tea.Cmd {
	text := m.clipboardText()
	if text == "" {
		m.addNotice("nothing to copy yet")
		return nil
	}
	clip := m.clipboard
	return func() tea.Msg {
		return copiedMsg{n: len([]rune(text)), report: clip(text)}
	}
}

// clipboardDoor is the one door of every copy to clip: pasted text is
// typed into whatever has the focus, so no control character but newline
// and tab gets in.
func clipboardDoor(clip copier) copier {
	return func(text string) copyReport { return clip(sanitize.Clipboard(text)) }
}

// terminalClipboard copies text through the terminal (OSC 52).
func terminalClipboard(text string) { termenv.NewOutput(os.Stdout).Copy(text) }

// clipboardText is what ctrl+y copies: the last finished answer with
// every control character but newline and tab removed, since pasted text
// is typed into whatever has the focus (a shell runs a pasted line).
func (m *Model) clipboardText() string {
	if m.login.url != "" {
		return m.login.url // a login waits: its page
	}
	for i := len(m.chat.entries) - 1; i >= 0; i-- {
		if e := m.chat.entries[i]; e.kind == assistantEntry && e.done && strings.TrimSpace(e.text) != "" {
			return sanitize.Clipboard(e.text)
		}
	}
	return ""
}

// helpLines are the overview's lines: the keys, then the commands, each
// description wrapped under itself to the box's width (helpWidth), so
// nothing is cut on any screen.
func (m *Model) helpLines() []string {
	st := m.st.Dialog
	iw := m.helpWidth() - 4
	lines := []string{st.Title.Render("Keys")}
	for _, group := range m.keys.FullHelp() {
		for _, k := range group {
			h := k.Help()
			lines = append(lines, helpRow(h.Key, 18, h.Desc, iw)...)
		}
	}
	lines = append(lines, "", st.Title.Render("Commands"))
	w0 := 0
	for _, c := range commands {
		w0 = max(w0, len(c.usage()))
	}
	for _, c := range commands {
		lines = append(lines, helpRow(c.usage(), w0, c.help, iw)...)
	}
	return lines
}

// helpWidth is the overview box's width: the screen's, less a margin.
func (m *Model) helpWidth() int { return max(m.width-4, 24) }

// helpRow is one key or command of the overview in rows of at most iw
// cells: the name padded to kw, then its description, wrapped with the
// rows after the first under its start; on a screen too narrow for that,
// the description goes below the name.
func helpRow(name string, kw int, desc string, iw int) []string {
	head := fmt.Sprintf("  %-*s ", kw, name)
	indent := ansi.StringWidth(head)
	if iw-indent < 30 {
		return append(indented(name, 2, iw), indented(desc, 4, iw)...)
	}
	rows := indented(desc, indent, iw)
	rows[0] = head + rows[0][indent:]
	return rows
}

// indented is s wrapped to iw cells, each row after indent spaces.
func indented(s string, indent, iw int) []string {
	rows, _ := greedyWrap(s, iw-indent)
	pad := strings.Repeat(" ", indent)
	for i := range rows {
		rows[i] = pad + rows[i]
	}
	return rows
}

// helpRows is how many of the overview's lines fit in its box over the
// chat, its last row being the hint.
func (m *Model) helpRows() int {
	return max(m.chat.height-m.st.Dialog.Box.GetVerticalFrameSize()-2, 3)
}

// helpBox is the key and command overview (? or /help), over the chat. A
// screen too short for all of it shows a page at a time: ↑/↓ and
// PgUp/PgDn scroll (handleHelpKey).
func (m *Model) helpBox() string {
	st := m.st.Dialog
	lines := m.helpLines()
	rows := m.helpRows()
	hint := "esc or ? closes"
	if len(lines) > rows {
		m.helpScroll = max(min(m.helpScroll, len(lines)-rows), 0)
		hint = fmt.Sprintf("esc or ? closes · ↑↓ PgUp PgDn scroll · lines %d–%d of %d",
			m.helpScroll+1, m.helpScroll+rows, len(lines))
		lines = lines[m.helpScroll : m.helpScroll+rows]
	}
	w := m.helpWidth()
	lines = append(lines, "", st.Hint.Render(hint))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w-4, "…") // only a title or the hint on a tiny screen: the rows are wrapped
	}
	return st.Box.Width(w).Render(strings.Join(lines, "\n"))
}
