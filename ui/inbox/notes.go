package inbox

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// maxNotes bounds the lines of notes under the list: what became of the
// last decisions. Every note is also kept for the full list (L).
const maxNotes = 6

// maxShownDetails is how many lines on single calls a decision shows
// under the list before its summary when they do not all fit (with the
// summary, maxNotes); the rest are in the full list.
const maxShownDetails = 2

// maxAllNotes bounds the notes kept for the full list; the oldest go
// past it, counted.
const maxAllNotes = 20000

// notesList is every note of this inbox session, oldest first, for the
// full list (L), and where that list is scrolled to.
type notesList struct {
	lines   []string
	dropped int  // the oldest lines dropped past maxAllNotes
	open    bool // the full list is shown
	top     int  // its first line shown
}

// add keeps lines for the full list.
func (n *notesList) add(lines ...string) {
	n.lines = append(n.lines, lines...)
	if over := len(n.lines) - maxAllNotes; over > 0 {
		n.lines = append([]string(nil), n.lines[over:]...)
		n.dropped += over
	}
}

// note adds lines to what the screen says of the last decisions, and to
// the full list.
func (m *Model) note(lines ...string) {
	m.all.add(lines...)
	m.show(lines...)
}

// show adds lines under the list only, keeping the last maxNotes.
func (m *Model) show(lines ...string) {
	m.notes = append(m.notes, lines...)
	if len(m.notes) > maxNotes {
		m.notes = m.notes[len(m.notes)-maxNotes:]
	}
}

// noteDecided takes what a step's decisions came to (send): the lines on
// single calls, then the summary. All go to the full list; under the
// list, the lines on single calls when they fit with the summary, else
// the first few and how many more the full list holds, and the summary
// last, so that it stays in view.
func (m *Model) noteDecided(lines []string) {
	if len(lines) == 0 {
		return
	}
	m.all.add(lines...)
	details, summary := lines[:len(lines)-1], lines[len(lines)-1]
	if more := len(details) - maxShownDetails; len(details) >= maxNotes && more > 0 {
		details = append(details[:maxShownDetails:maxShownDetails],
			fmt.Sprintf("… and %d more %s on single calls: L lists every note", more, plural(more, "note", "notes")))
	}
	m.show(append(details, summary)...)
}

// notesKey is a key while the full list of notes is shown: it scrolls,
// and Esc, L or q closes it.
func (m *Model) notesKey(msg tea.KeyMsg) {
	page := max(m.notesRows()-1, 1)
	switch msg.String() {
	case "esc", "L", "q":
		m.all.open = false
	case "up", "k":
		m.all.top--
	case "down", "j":
		m.all.top++
	case "pgup", "K":
		m.all.top -= page
	case "pgdown", "J", " ":
		m.all.top += page
	case "home":
		m.all.top = 0
	case "end":
		m.all.top = len(m.all.lines)
	}
}

// openNotes shows the full list of notes, its newest at the bottom.
func (m *Model) openNotes() {
	m.all.open = true
	m.all.top = len(m.all.lines)
}

// notesRows is how many lines of notes the full list shows.
func (m *Model) notesRows() int { return max(max(m.h, 8)-3, 1) }

// notesView draws the full list of notes in w×h: the head line, a title
// with the count, the notes wrapped (scrolled to all.top), and its keys.
func (m *Model) notesView(w, h int) string {
	var body []string
	if m.all.dropped > 0 {
		body = append(body, fmt.Sprintf("(%d older notes dropped)", m.all.dropped))
	}
	for _, l := range m.all.lines {
		body = append(body, wrapWords(l, w)...)
	}
	if len(m.all.lines) == 0 {
		body = append(body, "no notes yet: what becomes of your decisions is said here")
	}
	rows := max(h-3, 1)
	m.all.top = min(max(m.all.top, 0), max(len(body)-rows, 0))
	shown := body[m.all.top:min(m.all.top+rows, len(body))]
	n := len(m.all.lines) + m.all.dropped
	title := fmt.Sprintf("every note of this inbox: %d %s, oldest first · lines %d-%d of %d", n, plural(n, "line", "lines"),
		m.all.top+1, m.all.top+len(shown), len(body))
	out := []string{m.headLine(w), m.st.Dialog.Title.Render(fit(title, w))}
	for _, l := range shown {
		out = append(out, m.st.Chat.Notice.Render(l))
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	out = append(out, m.st.Dialog.Hint.Render(fit("↑↓ pgup/pgdn home/end scroll · esc, L or q closes", w)))
	return strings.Join(out, "\n")
}
