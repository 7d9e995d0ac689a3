package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A box that came up while the person was typing waits (boxfocus.go). It
// takes the keys by itself once the person has stopped: the input empty
// and no key for typingPause. A person who sent a message and waits for
// the question it brings need not press Tab; their next key answers the
// box, after its modalGuard, instead of going into the chat.

// boxPausedMsg wakes the model when a waiting box may take the keys.
type boxPausedMsg struct{}

// takeIfPaused gives the keys to f, which waits, when the person has
// paused since the key at last with nothing in the input. The box took
// them when the pause was over (not before it came up): its modalGuard
// counts from then, whether a tick or the next key finds it.
func (m *Model) takeIfPaused(f *boxFocus, last time.Time) {
	if f == nil || f.focused() || m.input.value() != "" || m.token != nil || last.IsZero() || !m.pausedSince(last) {
		return
	}
	f.took = f.shown
	if at := last.Add(typingPause); at.After(f.took) {
		f.took = at
	}
	f.byPause = true
	m.modalWake = true
	m.dirty = true
}

// pausedTab lets the pause that is over by the key msg (the one before it
// came at prev) give the box the keys, before the key is routed. The
// first key after the box took them by a pause, when it is Tab, is the
// person doing as the box said (pause, then tab): it is used up, not
// given to the box (a form would move to its next field).
func (m *Model) pausedTab(f *boxFocus, prev time.Time, msg tea.KeyMsg) bool {
	if f == nil {
		return false
	}
	m.takeIfPaused(f, prev)
	if !f.byPause {
		return false
	}
	f.byPause = false
	return msg.Type == tea.KeyTab
}

// pauseWake is the tick that lets a waiting box take the keys when the
// pause is over: one at a time, and only while the input is empty (text
// in it keeps the box waiting however long the pause).
func (m *Model) pauseWake() tea.Cmd {
	f := m.frontBox()
	if m.pauseTick || f == nil || f.focused() || m.input.value() != "" || m.token != nil {
		return nil
	}
	m.pauseTick = true
	wait := max(typingPause-m.now().Sub(m.lastKey), 10*time.Millisecond)
	return tea.Tick(wait, func(time.Time) tea.Msg { return boxPausedMsg{} })
}
