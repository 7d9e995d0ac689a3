package ui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"latch/session"
	"latch/ui/sanitize"
)

// modal is the permission question over the chat: an asked call (y, n, a,
// e, A, Esc) or a parked one (y, n, Esc = decide later).
type modal struct {
	card     *card
	approval string    // set for a parked call
	scroll   int       // first argument line shown
	box      boxFocus  // whether it has the keys (boxfocus.go)
	save     *saveStep // A's second step, when shown (rulesave.go)
	notice   string    // a rule of the moment denies the call (rulenotice.go)

	argsWidth int      // the width args was wrapped for
	args      []string // the wrapped argument lines
	full      bool     // every value shown whole (modalargs.go)
	elided    int      // how many keys and values args elides
}

// modalGuard is how long after a box takes the keys its answer keys are
// ignored, and how long a box must have been on screen before Tab takes
// it: a key typed as it appeared was not meant for it.
const modalGuard = 300 * time.Millisecond

// modalReadyMsg wakes the screen up when the guard is over, to drop its
// hint.
type modalReadyMsg struct{}

// handleModalKey answers the modal once it has the keys. Only keys typed
// here decide anything: one key typed alone (a burst of characters is
// text, never an answer), and only once modalGuard has passed.
func (m *Model) handleModalKey(msg tea.KeyMsg) tea.Cmd {
	md := m.modal
	m.dirty = true
	switch {
	case isText(msg), md.save == nil && (modalScroll(msg, &md.scroll) || md.toggleFull(msg)):
		return nil
	case m.boxGuarded(&md.box):
		return nil // too soon to be an answer to this question
	case md.save != nil:
		return m.handleSaveKey(md, msg) // rulesave.go
	}
	switch {
	case isRune(msg, 'y', 'Y'):
		return m.answer(md, session.AnswerYes)
	case isRune(msg, 'n', 'N'):
		return m.answer(md, session.AnswerNo)
	case isRune(msg, 'a'):
		if md.approval == "" {
			return m.answer(md, session.AnswerAlways)
		}
	case isRune(msg, 'e'):
		// These exact arguments only, for the session: the same tool
		// with other arguments asks again.
		if md.approval == "" {
			return m.answer(md, session.AnswerExact)
		}
	case isRune(msg, 'A'):
		// Saved: an argument rule into the config file, or the tool as
		// defined now into the grants file, chosen in a second step
		// that shows what will be written where (rulesave.go). Only
		// this key, typed here, leads there.
		if md.approval == "" {
			m.openSaveStep(md)
		}
	case msg.Type == tea.KeyEsc:
		if m.dismissModal(md) {
			m.sess.Cancel() // Esc on a model's asked call denies it and cancels the turn
		}
	}
	return nil
}

// dismissModal closes the permission box as Esc does: a parked call stays
// parked (and the chat says how to decide it later), a client's asked
// call parks (its client polls for the decision), a model's asked call is
// denied. It reports whether the call was a model's asked one: its turn
// is to be cancelled.
func (m *Model) dismissModal(md *modal) bool {
	m.removeModal(md)
	switch {
	case md.approval != "":
		m.addNotice(fmt.Sprintf("approval %s is waiting: /approve %s or /reject %s when you have decided", md.approval, md.approval, md.approval))
		return false
	case md.card.client != "":
		m.asks.AnswerAsk(md.card.callID, session.AnswerLater)
		return false
	}
	m.asks.AnswerAsk(md.card.callID, session.AnswerNo)
	return true
}

// modalScroll scrolls a box's text on ↑/↓ (k/j) and PgUp/PgDn, and
// reports whether msg was one of them. The box's render keeps the scroll
// in range.
func modalScroll(msg tea.KeyMsg, scroll *int) bool {
	switch {
	case msg.Type == tea.KeyUp, isRune(msg, 'k'):
		*scroll = max(*scroll-1, 0)
	case msg.Type == tea.KeyDown, isRune(msg, 'j'):
		*scroll++
	case msg.Type == tea.KeyPgUp:
		*scroll = max(*scroll-10, 0)
	case msg.Type == tea.KeyPgDown:
		*scroll += 10
	default:
		return false
	}
	return true
}

func (m *Model) answer(md *modal, a session.Answer) tea.Cmd {
	m.removeModal(md)
	if md.approval == "" {
		m.asks.AnswerAsk(md.card.callID, a)
		return nil
	}
	return m.decide(md.approval, a != session.AnswerNo)
}

// approvalDoneMsg reports a decision on a parked call.
type approvalDoneMsg struct {
	id      string
	approve bool
	err     error
}

// decide approves or rejects a parked call, in a command: for a call
// parked before a restart, the session logs the decision (synced) and
// starts the turn again.
func (m *Model) decide(id string, approve bool) tea.Cmd {
	asks := m.asks
	return func() tea.Msg { return approvalDoneMsg{id: id, approve: approve, err: asks.Decide(id, approve)} }
}

// handleApprovalDone reports a decision that could not be applied.
func (m *Model) handleApprovalDone(msg approvalDoneMsg) {
	if msg.err != nil {
		m.addError(fmt.Sprintf("approval %s: %s", sanitize.Line(msg.id), sanitizeText(msg.err.Error())))
	}
	m.dirty = true
}

// render draws the modal box for a screen of width × height. The rows
// left to the arguments are first guessed, then, where the key line, the
// hints or the notes wrap onto more rows than guessed (a narrow screen),
// fewer, down to one, so that the box stays whole: its keys on screen.
//
// On a screen too short for that (50×18: the fixed rows alone were taller
// than the chat area, and the keys and the bottom border were cut off)
// the box is drawn compact: no blank rows, the hints, a rule's notice
// and the arguments one row each, and a row saying that more is hidden
// and how to see it; the tool, the keys and the border stay whole.
func (md *modal) render(m *Model, width, height int) string {
	rows := -1
	for {
		out, shown := md.renderArgRows(m, width, height, rows, false)
		over := lipgloss.Height(out) - height
		if over <= 0 {
			return out
		}
		if shown <= 1 {
			out, _ = md.renderArgRows(m, width, height, 1, true)
			return out
		}
		rows = max(shown-over, 1)
	}
}

// renderArgRows draws the box with at most rows rows of arguments (-1:
// as many as height leaves by the guess), and says how many it showed;
// compact, as render says.
func (md *modal) renderArgRows(m *Model, width, height, rows int, compact bool) (string, int) {
	st := m.st.Dialog
	c := md.card
	w := min(width-4, 90)
	gap := "\n"
	if compact {
		gap = ""
	}
	var b strings.Builder
	notice := md.head(m, &b, w, compact) // modalhead.go
	wrapped := md.layoutArgs(m, w)       // modalargs.go
	save := ""
	if md.save != nil {
		save = m.renderSave(md, w)
	}
	if rows < 0 {
		rows = max(height-14-strings.Count(save, "\n")-strings.Count(notice, "\n"), 3)
	}
	shown := md.argRows(m, &b, wrapped, w, rows, compact) // modalhead.go
	b.WriteString(gap)
	switch {
	case md.save != nil:
		b.WriteString(save)
	case md.approval != "":
		b.WriteString(st.Hint.Render("y approve (runs once) · n reject · esc decide later"))
	case c.client != "":
		b.WriteString(st.Hint.Render(m.askKeys(c) + " · esc decide later"))
	default:
		b.WriteString(st.Hint.Render(m.askKeys(c) + " · esc deny and stop"))
	}
	if n := len(m.behind); n > 0 {
		b.WriteString("\n" + st.Hint.Render(fmt.Sprintf("%d more %s waiting after this one", n, plural(n, "call", "calls"))))
	}
	for _, l := range m.boxNote(&md.box, w-4) {
		b.WriteString("\n" + l)
	}
	return m.boxStyle(&md.box).Width(w).Render(b.String()), shown
}

// tickMsg animates running tool cards.
type tickMsg struct{}

func (m *Model) tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// maybeTick starts the animation when a call runs; it stops by itself.
func (m *Model) maybeTick() tea.Cmd {
	if m.ticking || !m.anyRunning() {
		return nil
	}
	m.ticking = true
	return m.tick()
}

func (m *Model) handleTick() tea.Cmd {
	m.spin++
	if !m.anyRunning() {
		m.ticking = false
		return nil
	}
	for _, en := range m.cards {
		if en.card.state == cardRunning {
			en.card.frame = m.spin
			en.invalidate()
		}
	}
	m.chat.dirty = true
	m.dirty = true
	return m.tick()
}

// askKeys is the key line of an asked call's box, but for Esc. On a
// server with approve_args "exact", `a` is `e`: these arguments only.
func (m *Model) askKeys(c *card) string {
	if m.perms.ApprovesExactArgs(c.server) {
		return "y run once · n deny · a/e allow these arguments for this session · A allow always (saved)"
	}
	return "y run once · n deny · a allow for this session · e only these arguments · A allow always (saved)"
}
