package ui

import (
	"fmt"
	"strings"

	"latch/ui/sanitize"
)

// busy says whether what is typed now must wait: a turn runs (or a
// /compact, which holds the input like one), /clear winds the session
// down, or attached resources are being read before a message goes.
func (m *Model) busy() bool {
	return m.running || m.clearing > 0 || m.attaching > 0
}

// queueCommand holds a command typed while the chat is busy (/compact,
// /uncompact, /fork: they need the turn to have ended): it waits, visibly,
// with the messages typed meanwhile, and runs when the turn ends; Esc
// takes it back. It reports whether it held the command.
func (m *Model) queueCommand(line string) bool {
	if !m.busy() {
		return false
	}
	m.queued = append(m.queued, line)
	head, _, _ := strings.Cut(line, " ")
	m.addNotice(fmt.Sprintf("queued (%d): %s runs when this reply ends · esc takes it back", len(m.queued), sanitize.Line(head)))
	return true
}

// runQueuedCommand runs a command held by queueCommand, now that the turn
// has ended. A /compact that started holds what is queued behind it
// until the compaction ends; any other command (or a /compact that
// failed) lets the next queued line go at once. A command that failed
// comes back to the input, to be fixed, when the input is empty.
func (m *Model) runQueuedCommand(line string) {
	errs := m.errCount
	m.later = append(m.later, m.runCommand(line))
	failed := m.errCount > errs
	if failed && m.input.value() == "" {
		m.input.set(line)
	}
	head, _, _ := strings.Cut(line, " ")
	if failed || head != "/compact" {
		m.sendQueued()
	}
}
