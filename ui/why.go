package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/ui/sanitize"
)

// cmdWhy explains the gate's decision on a call: /why CALL_ID, or the
// last call decided when no id is given. It says what was decided, by
// whom, why, and the argument rule that decided, if one did.
func (m *Model) cmdWhy(args []string) tea.Cmd {
	var c *card
	switch len(args) {
	case 0:
		c = m.lastDecided()
	case 1:
		if en := m.cardFor(args[0]); en != nil && en.card.decided != "" {
			c = en.card
		}
	default:
		m.badArgs("why")
		return nil
	}
	if c == nil {
		m.addError("/why: no decided call with that id (a card's id is the call_id of its tool_call; /why alone explains the last one)")
		return nil
	}
	var b strings.Builder
	b.WriteString(sanitize.Line(c.callID) + " " + sanitize.Line(c.tool) + ": " + c.decided)
	if c.whyBy != "" {
		b.WriteString(" by " + sanitize.Line(c.whyBy))
	}
	if c.why != "" {
		b.WriteString("\n  " + sanitizeText(c.why))
	}
	if c.rule != "" {
		b.WriteString("\n  rule: " + sanitize.Line(c.rule) + " (latch policy list shows it)")
	}
	m.addNotice(b.String())
	return nil
}

// lastDecided is the card of the last call the gate (or the person)
// decided, or nil.
func (m *Model) lastDecided() *card {
	for i := len(m.chat.entries) - 1; i >= 0; i-- {
		if e := m.chat.entries[i]; e.kind == toolEntry && e.card != nil && e.card.decided != "" {
			return e.card
		}
	}
	return nil
}
