package ui

import (
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// handleKey routes a key: the picker first when open, then global keys,
// then the editor.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Quit) {
		return m.quit()
	}
	if m.token != nil {
		return m.handleTokenKey(msg)
	}
	if m.modal != nil {
		return m.handleModalKey(msg)
	}
	if m.picker != nil {
		return m.handlePickerKey(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Cancel):
		// Esc stops the innermost thing: a running tool call (the model
		// is told and goes on), else the streaming reply.
		if m.b.CancelTools() {
			return nil
		}
		if m.running {
			m.b.Cancel()
		}
		return nil
	case key.Matches(msg, m.keys.PageUp):
		m.chat.scroll(-max(m.chat.height-1, 1))
	case key.Matches(msg, m.keys.PageDown):
		m.chat.scroll(max(m.chat.height-1, 1))
	case key.Matches(msg, m.keys.LineUp):
		m.chat.scroll(-1)
	case key.Matches(msg, m.keys.LineDown):
		m.chat.scroll(1)
	case key.Matches(msg, m.keys.Bottom):
		m.chat.gotoBottom()
	case key.Matches(msg, m.keys.Send) && !msg.Paste:
		return m.submit()
	case key.Matches(msg, m.keys.Complete) && strings.HasPrefix(m.input.value(), "/"):
		m.complete()
	default:
		before := m.input.height()
		cmd := m.input.update(msg)
		if m.input.height() != before {
			m.layout()
		}
		m.dirty = true
		return cmd
	}
	m.dirty = true
	return nil
}

// submit sends the input: a slash command runs here and never reaches the
// model; anything else goes to the session.
func (m *Model) submit() tea.Cmd {
	text := m.input.value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(text), "/") {
		m.input.reset()
		m.layout()
		return m.runCommand(strings.TrimSpace(text))
	}
	if err := m.b.Send(text); err != nil {
		// Keep the text so nothing typed is lost.
		m.addError(err.Error())
		return nil
	}
	m.input.reset()
	m.layout()
	m.chat.gotoBottom()
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.b.Cancel()
	return tea.Quit
}

// serverCommands take a server name as their argument.
var serverCommands = map[string]bool{"connect": true, "close": true, "token": true, "tools": true, "logs": true}

// complete finishes a slash command name, or a server name after a
// command that takes one, on Tab.
func (m *Model) complete() {
	v := m.input.value()
	if strings.Contains(v, "\n") {
		return
	}
	var hits []string
	if cmd, arg, ok := strings.Cut(v, " "); ok {
		name := strings.TrimPrefix(cmd, "/")
		if !serverCommands[name] || strings.Contains(arg, " ") {
			return
		}
		names := m.b.ServerNames()
		if name == "connect" || name == "close" {
			names = append(names, "all")
		}
		for _, n := range names {
			if strings.HasPrefix(n, arg) {
				hits = append(hits, cmd+" "+n)
			}
		}
	} else {
		for _, c := range commands {
			if strings.HasPrefix("/"+c.name, v) {
				hits = append(hits, "/"+c.name)
			}
		}
	}
	switch len(hits) {
	case 0:
		return
	case 1:
		m.input.set(hits[0] + " ")
	default:
		p := commonPrefix(hits)
		if len(p) > len(v) {
			m.input.set(p)
		} else {
			m.addNotice(strings.Join(hits, "  "))
		}
	}
	m.dirty = true
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// userMessage renders an error for the chat line.
func userMessage(err error) string {
	var ue *session.UserError
	if errors.As(err, &ue) {
		return ue.Msg
	}
	return err.Error()
}
