package ui

import (
	"fmt"

	"latch/session"
)

// A message Ollama refused before any reply (too long for the context, a
// think level it does not take) is not in the conversation
// (TurnDone.Unsent): it goes back to the input, to be sent again once
// there is room, so nothing typed is lost. To make room the person runs
// a command (/compact, /context NUM), which needs the input: so the
// message is also held, and comes back to an empty input after each
// command until it is sent (or edited and sent). Messages queued behind
// it wait for the next turn to end, so they still follow it.

// giveBack returns the refused message of the turn that ended to the
// input, and holds it. Typed text already in the input is not replaced.
func (m *Model) giveBack(e *session.TurnDone) {
	text := m.sentText
	m.sentText = ""
	if text == "" || !e.Unsent {
		return
	}
	m.held = text
	if m.input.value() != "" {
		m.addNotice("your message was not sent: it comes back to the input after your next command, or ↑ brings it back")
		return
	}
	m.input.set(text)
	m.layout()
	if !e.TooLong { // a think level refused, Ollama not running: no room to make
		m.addNotice("your message is back in the input, not sent: enter sends it again; " +
			"a command typed first (ctrl+c clears the input) brings it back after" + queuedBehind(len(m.queued)))
		return
	}
	m.addNotice("your message is back in the input, not sent. To make room first, clear the input (ctrl+c) " +
		"and run /compact or /context NUM: the message comes back here after the command" + queuedBehind(len(m.queued)))
}

// queuedBehind says that messages queued behind a refused one wait.
func queuedBehind(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (the %d queued behind it wait for the next reply to end)", n)
}

// restoreHeld puts the held message back in the input once a command has
// run, when the input is empty and the command opened nothing that takes
// the keys (a picker, the masked /token input): then the next command
// brings it back.
func (m *Model) restoreHeld() {
	if m.held != "" && m.input.value() == "" && m.token == nil && m.picker == nil {
		m.input.set(m.held)
	}
}
