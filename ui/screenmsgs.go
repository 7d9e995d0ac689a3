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

// SyncOutputMsg is the terminal's answer about synchronized output (DEC
// mode 2026) come late, after the screen opened without it (see
// TeaInput's onSync): true when the terminal has it. The frames from the
// next one on are bracketed by it, as they are when the answer came in
// time (Options.SyncOutput).
type SyncOutputMsg bool

// screenSync turns synchronized output on or off for the frames to come.
func (m *Model) screenSync(on bool) {
	if m.screen != nil {
		m.screen.sync = on
	}
}
