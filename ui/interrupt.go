package ui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// Ctrl+C interrupts; it quits only when pressed again. Each press stops
// the innermost thing there is (the /token prompt, a history search, the
// boxes over the chat and the running turn, else the text in the input)
// and arms the quit: a second Ctrl+C within quitWindow, by the model's
// clock, quits, and "Ctrl+C again to quit" shows meanwhile; any other
// key in between disarms it (handleKey). Ctrl+D on an empty input quits
// at once.

// quitWindow is how long after a Ctrl+C a second one quits.
const quitWindow = 2 * time.Second

// quitWindowOverMsg wakes the screen up when the window is over, to drop
// its hint.
type quitWindowOverMsg struct{}

// quitArmed reports whether a Ctrl+C now quits.
func (m *Model) quitArmed() bool {
	return !m.ctrlCAt.IsZero() && m.now().Sub(m.ctrlCAt) < quitWindow
}

// ctrlC is a press of Ctrl+C.
func (m *Model) ctrlC() tea.Cmd {
	if m.quitArmed() {
		return m.quit()
	}
	switch {
	case m.token != nil:
		m.token = nil
		m.addNotice("/token cancelled")
	case m.search != nil:
		m.endSearch(false)
	case m.interrupt():
	case m.input.value() != "":
		m.input.reset()
		m.walk = histWalk{}
		m.layout()
	}
	m.helpOpen, m.picker = false, nil
	m.ctrlCAt = m.now()
	m.dirty = true
	return tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitWindowOverMsg{} })
}

// interrupt stops what runs, as Esc would, and reports whether there was
// anything: the boxes over the chat are answered as Esc answers them (an
// asked call is denied; a parked one stays parked), the queued messages
// are not sent (they are in the history), a login waiting in the browser
// is given up, and the running turn is cancelled, its partial reply kept.
// A turn that waits for a parked call's approval is not cancelled: that
// would void the approval; it stays parked, for /approve now or after
// --resume.
func (m *Model) interrupt() bool {
	stopped := m.closeBoxes()
	if n := len(m.queued); n > 0 {
		m.queued = nil
		m.addNotice(fmt.Sprintf("not sent: %d queued %s (↑ brings them back)", n, plural(n, "message", "messages")))
		stopped = true
	}
	if m.cancelLogin() {
		stopped = true
	}
	if m.running && !m.waitsForApproval() {
		m.sess.Cancel()
		stopped = true
	}
	return stopped
}

// closeBoxes answers every box over the chat as Esc does, and reports
// whether there was one.
func (m *Model) closeBoxes() bool {
	open := m.overModal()
	for _, md := range m.allModals() {
		m.dismissModal(md)
	}
	for _, fm := range append([]*formModal(nil), m.forms...) {
		m.answerForm(fm, session.ElicitCancel, nil)
	}
	if md := m.sampling.modal; md != nil {
		m.answerSample(md, false)
	}
	return open
}

// waitsForApproval reports whether the running turn waits for a parked
// call's decision.
func (m *Model) waitsForApproval() bool {
	for _, en := range m.cards {
		if en.turn == m.turn && en.card.state == cardParked && !en.card.replayed {
			return true
		}
	}
	return false
}
