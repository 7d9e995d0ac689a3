package ui

import (
	"time"

	"github.com/charmbracelet/lipgloss"
)

// A box over the chat (the permission question, a server's form or link,
// a sampling request) may come up while the person is typing their next
// message; those keys are meant for the chat, at any typing speed. So a
// box takes the keys only when it comes to the front while the person is
// idle (an empty input, no key for typingPause), or when the person takes
// it: a pause in typing, then Tab; or, with the input empty, by itself
// once no key has come for typingPause (boxpause.go). Until then it is drawn as waiting, and
// every key goes where it would go without it (text, Backspace, Enter,
// Esc): a box never gets a key, nor an Enter, it has not been given.
// Once a box has the keys, modalGuard still ignores its answers for a
// moment.

// typingPause is how long without a key counts as not typing.
const typingPause = time.Second

// boxFocus is whether a box over the chat has the keys. Each kind of box
// holds one; frontBox finds the one in front.
type boxFocus struct {
	shown time.Time // when it came to the front; zero until then
	took  time.Time // when it took the keys; zero while they go to the chat

	byPause bool // it took them by a pause, and no key has come since (boxpause.go)
}

// focused reports whether the box has the keys.
func (f *boxFocus) focused() bool { return !f.took.IsZero() }

// frontBox is the focus of the box in front, nil when there is none: the
// permission question before a server's request, a request before a
// sampling question.
func (m *Model) frontBox() *boxFocus {
	for _, b := range []*boxFocus{m.modalBox(), m.formBox(), m.samplingBox()} {
		if b != nil {
			return b
		}
	}
	return nil
}

// modalBox, formBox and samplingBox are the focus of each kind of box, nil
// when none is open (of the requests, only the first is ever shown).
func (m *Model) modalBox() *boxFocus {
	if m.modal == nil {
		return nil
	}
	return &m.modal.box
}

func (m *Model) formBox() *boxFocus {
	if len(m.forms) == 0 {
		return nil
	}
	return &m.forms[0].box
}

func (m *Model) samplingBox() *boxFocus {
	if m.sampling.modal == nil {
		return nil
	}
	return &m.sampling.modal.box
}

// showFront runs after every message: a box that has just come to the
// front (opened, or was behind another) takes the keys only if the person
// is not typing. A box behind another loses the keys: the keys typed into
// the one in front are not meant for it when it comes back.
func (m *Model) showFront() {
	f := m.frontBox()
	for _, b := range []*boxFocus{m.modalBox(), m.formBox(), m.samplingBox()} {
		if b != nil && b != f {
			*b = boxFocus{}
		}
	}
	if f == nil || !f.shown.IsZero() {
		return
	}
	f.shown = m.now()
	if m.input.value() == "" && m.token == nil && m.pausedSince(m.lastKey) {
		f.took = f.shown
	}
	m.modalWake = true
	m.dirty = true
}

// pausedSince reports whether typingPause has passed since a key that
// came at last (zero: no key yet).
func (m *Model) pausedSince(last time.Time) bool {
	return last.IsZero() || m.now().Sub(last) >= typingPause
}

// takeBox is Tab on a box that waits: it takes the keys after a pause in
// typing (the key before Tab came at prev), once the box has been on
// screen for modalGuard. A Tab in the middle of typing does nothing: it
// is not meant for a box the person may not have seen.
func (m *Model) takeBox(f *boxFocus, prev time.Time) {
	if m.now().Sub(f.shown) < modalGuard || !m.pausedSince(prev) {
		return
	}
	f.took = m.now()
	m.modalWake = true
	m.dirty = true
}

// boxGuarded reports whether the box still ignores answers: it does not
// have the keys, or took them less than modalGuard ago.
func (m *Model) boxGuarded(f *boxFocus) bool {
	return !f.focused() || m.now().Sub(f.took) < modalGuard
}

// boxNote is the line a box shows under its keys about its focus, wrapped
// to width: how to take it while it waits, or that its keys are ignored
// for a moment; none once it answers keys.
func (m *Model) boxNote(f *boxFocus, width int) []string {
	var note string
	switch {
	case !f.focused():
		note = "keys go to the chat while you type · pause, then tab to answer"
	case m.boxGuarded(f):
		note = "(keys ignored for a moment)"
	default:
		return nil
	}
	lines := wrapLine(note, width, "")
	for i, l := range lines {
		lines[i] = m.st.Dialog.Hint.Render(l)
	}
	return lines
}

// boxStyle is the box's frame: the dialog's, or a waiting one's.
func (m *Model) boxStyle(f *boxFocus) lipgloss.Style {
	if f.focused() {
		return m.st.Dialog.Box
	}
	return m.st.Dialog.Waiting
}
