package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/ui/sanitize"
)

// The completion menu. Above the input, the candidates of what is typed
// are shown as it is typed (the popup), for every kind of completion
// (candidates). Tab with several of them opens the popup as a menu: one
// is selected, ↓/↑ and Tab/Shift+Tab move, Enter takes it, Esc closes it.
// Only an open menu takes those keys; closed, they are the input's.

// menuRows is how many candidates the popup shows at once.
const menuRows = 8

// Caps on what completion offers: servers say how many resources,
// prompts and values there are, and how long they are.
const (
	maxCandidates   = 500  // more are not offered
	maxCandidateLen = 2048 // bytes; a longer candidate is not offered
)

// compMenu is the state of the completion menu.
type compMenu struct {
	open bool
	pick string // the selected candidate's text
	top  int    // the first candidate shown, when they do not all fit
	// closed is the input Esc closed the menu on: the popup is not shown
	// again until the input changes.
	closed    string
	hasClosed bool
}

// candidates lists the completions of the input v (see allCandidates),
// as the menu offers them: at most maxCandidates, none too long to type,
// each made one inert line.
func (m *Model) candidates(v string) []candidate {
	var out []candidate
	for _, c := range m.allCandidates(v) {
		if len(c.text) > maxCandidateLen {
			continue
		}
		c.text = sanitize.Line(c.text)
		c.help = strings.Join(strings.Fields(sanitize.Line(c.help)), " ")
		if out = append(out, c); len(out) == maxCandidates {
			break
		}
	}
	return out
}

// menuBlocked reports whether something over the chat hides the popup: a
// box (which has the keys, or waits and takes Tab), the picker, the token
// prompt or the help overview.
func (m *Model) menuBlocked() bool {
	return m.frontBox() != nil || m.picker != nil || m.token != nil || m.helpOpen || m.copying != nil
}

// popupItems are the candidates the popup shows for the input, none when
// there is nothing to show: nothing to complete, only what is typed
// already, or the popup closed with Esc on this input.
func (m *Model) popupItems() []candidate {
	v := m.input.value()
	if m.menuBlocked() || (m.menu.hasClosed && m.menu.closed == v) {
		return nil
	}
	hits := m.candidates(v)
	if len(hits) == 1 && strings.TrimSpace(hits[0].text) == strings.TrimSpace(v) {
		return nil
	}
	return hits
}

// openMenu opens the menu over the candidates, the first selected.
func (m *Model) openMenu() {
	m.menu = compMenu{open: true}
	m.dirty = true
}

// closeMenu closes the menu, if open.
func (m *Model) closeMenu() {
	if m.menu.open {
		m.menu = compMenu{}
		m.dirty = true
	}
}

// menuSelection is the open menu's candidates and the selected one's
// index; ok is false when the menu is not open or has nothing to offer.
func (m *Model) menuSelection() (items []candidate, sel int, ok bool) {
	if !m.menu.open {
		return nil, 0, false
	}
	items = m.popupItems()
	if len(items) == 0 {
		return nil, 0, false
	}
	for i, c := range items {
		if c.text == m.menu.pick {
			return items, i, true
		}
	}
	return items, 0, true // what was picked is gone: the first
}

// handleMenuKey gives a key to the open menu first; handled is false for
// a key the menu leaves to the chat (typing, which then filters it).
func (m *Model) handleMenuKey(msg tea.KeyMsg) (handled bool) {
	items, sel, ok := m.menuSelection()
	if !ok {
		m.closeMenu()
		return false
	}
	switch {
	case msg.Type == tea.KeyDown:
		m.selectItem(items, sel+1)
	case msg.Type == tea.KeyUp || msg.Type == tea.KeyShiftTab:
		m.selectItem(items, sel-1)
	case msg.Type == tea.KeyTab:
		if len(items) == 1 || m.extendsInput(items) {
			return false // Tab completes, as when the menu is closed
		}
		m.selectItem(items, sel+1)
	case msg.Type == tea.KeyEnter && !msg.Alt:
		m.takeCandidate(items[sel])
	case msg.Type == tea.KeyEsc:
		m.menu = compMenu{closed: m.input.value(), hasClosed: true}
	default:
		return false
	}
	m.dirty = true
	return true
}

// extendsInput reports whether the candidates have more in common than
// is typed: Tab would complete it.
func (m *Model) extendsInput(items []candidate) bool {
	texts := make([]string, len(items))
	for i, c := range items {
		texts[i] = c.text
	}
	return len(commonPrefix(texts)) > len(m.input.value())
}

// selectItem selects candidate i, going round at either end, and scrolls
// the menu to show it.
func (m *Model) selectItem(items []candidate, i int) {
	i = (i + len(items)) % len(items)
	m.menu.pick = items[i].text
	switch {
	case i < m.menu.top:
		m.menu.top = i
	case i >= m.menu.top+menuRows:
		m.menu.top = i - menuRows + 1
	}
}

// takeCandidate puts candidate c in the input, as Tab does with one, and
// closes the menu. Nothing is sent.
func (m *Model) takeCandidate(c candidate) {
	m.input.set(c.text + completedSuffix(c))
	m.menu = compMenu{}
	m.layout()
}

// afterChatKey keeps the menu true to the input after a key went to it:
// closed when the input no longer has candidates, the Esc of a previous
// input forgotten.
func (m *Model) afterChatKey() {
	if m.menu.hasClosed && m.menu.closed != m.input.value() {
		m.menu.closed, m.menu.hasClosed = "", false
	}
	if m.menu.open {
		if _, _, ok := m.menuSelection(); !ok {
			m.closeMenu()
		}
	}
}
