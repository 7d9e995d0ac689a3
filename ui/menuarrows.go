package ui

import tea "github.com/charmbracelet/bubbletea"

// arrowOpensMenu lets ↓ and ↑ move into the popup as soon as it shows
// what was typed (/c and ↓), not only after Tab: ↓ opens the menu on the
// first candidate, ↑ on the last. While ↑/↓ walk the input history they
// keep walking it. It reports whether it took the key.
func (m *Model) arrowOpensMenu(msg tea.KeyMsg) bool {
	if m.menu.open || m.walk.active || (msg.Type != tea.KeyDown && msg.Type != tea.KeyUp) {
		return false
	}
	items := m.popupItems()
	if len(items) == 0 {
		return false
	}
	m.openMenu()
	if msg.Type == tea.KeyUp {
		m.selectItem(items, len(items)-1)
	} else {
		m.selectItem(items, 0)
	}
	return true
}
