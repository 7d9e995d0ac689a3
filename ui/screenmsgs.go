package ui

import tea "github.com/charmbracelet/bubbletea"

// screenResized tells the screen the terminal's new size: the next frame
// is drawn whole.
func (m *Model) screenResized(msg tea.WindowSizeMsg) {
	if m.screen != nil {
		m.screen.resize(msg.Width, msg.Height)
	}
}

// screenResumed redraws everything after Ctrl+Z: the terminal was used
// meanwhile.
func (m *Model) screenResumed() {
	if m.screen != nil {
		m.screen.invalidate()
		m.dirty = true
	}
}
