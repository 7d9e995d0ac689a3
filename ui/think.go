package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// cmdThink shows or sets what a model that can think is asked: to think
// (on), not to (off), at a level (low … max: Ollama v0.32 takes them from
// any model that can think, v0.17.4 only from gpt-oss models; a refusal
// says so, and the message comes back to the input), or Ollama's default.
func (m *Model) cmdThink(args []string) tea.Cmd {
	switch len(args) {
	case 0:
		m.addNotice("think: " + thinkWords(m.models.Think()) + " (sent only to models that can think; " +
			"/think on|off|low|medium|high|max|default)")
	case 1:
		if err := m.models.SetThink(args[0]); err != nil {
			m.addError(userMessage(err))
			return nil
		}
		m.addNotice(fmt.Sprintf("think: %s, from the next message (sent only to models that can think)", thinkWords(m.models.Think())))
	default:
		m.badArgs("think")
	}
	return nil
}

func thinkWords(v string) string {
	if v == "" {
		return "Ollama's default (models that can think do)"
	}
	return v
}
