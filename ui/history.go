package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The input history is the session's (session.InputHistory): the
// messages and slash commands sent, in this session and earlier ones.
// ↑ on the input's first row and ↓ on its last walk through it; Ctrl+R
// searches it. A walk or a search works on a copy taken when it starts.

// histWalk is where ↑/↓ are in the history while walking it.
type histWalk struct {
	active  bool
	entries []string // oldest first
	pos     int      // the entry shown; len(entries): the draft
	draft   string   // what was being typed when the walk began
}

// historyUp shows the entry before the one shown (the newest, at first),
// keeping what was being typed as the draft. It reports whether it took
// the key: not when there is no history.
func (m *Model) historyUp() bool {
	w := &m.walk
	if !w.active {
		entries := m.sess.InputHistory()
		if len(entries) == 0 {
			return false
		}
		*w = histWalk{active: true, entries: entries, pos: len(entries), draft: m.input.value()}
	}
	// The entry shown now again would look like a key that did nothing.
	cur := m.input.value()
	next := w.pos - 1
	for next >= 0 && w.entries[next] == cur {
		next--
	}
	if next < 0 {
		return true // the oldest is shown: nothing older
	}
	w.pos = next
	m.input.setAtTop(w.entries[w.pos])
	m.layout()
	return true
}

// historyDown shows the entry after the one shown, and past the newest
// what was being typed. It reports whether it took the key: not when no
// walk is on.
func (m *Model) historyDown() bool {
	w := &m.walk
	if !w.active {
		return false
	}
	w.pos++
	if w.pos >= len(w.entries) {
		m.input.set(w.draft)
		*w = histWalk{}
	} else {
		m.input.set(w.entries[w.pos])
	}
	m.layout()
	return true
}

// remember adds what the person sent to the history, and ends a walk.
// When the history file cannot be written the entry is still recalled in
// this session; the first failure is said.
func (m *Model) remember(text string) {
	m.walk = histWalk{}
	if err := m.sess.Remember(text); err != nil && !m.histFailed {
		m.histFailed = true
		m.addNotice("cannot write the input history (↑ recalls this session's messages only): " + sanitizeText(err.Error()))
	}
}

// histSearch is Ctrl+R's search of the history, newest first: the
// matching entry is shown in the input as the person types.
type histSearch struct {
	entries []string // oldest first
	query   string
	at      int    // the entry shown; len(entries): none yet
	failing bool   // nothing (older) matches the query
	before  string // the input before the search, for Esc
}

// startSearch is Ctrl+R at the chat.
func (m *Model) startSearch() {
	entries := m.sess.InputHistory()
	m.search = &histSearch{entries: entries, at: len(entries), before: m.input.value()}
	m.walk = histWalk{}
	m.dirty = true
}

// handleSearchKey handles a key while searching: text and Backspace
// change the query, Ctrl+R finds an older match, Enter takes the match
// into the input, Esc puts the input back as it was. Any other key takes
// the match and then does what it does.
func (m *Model) handleSearchKey(msg tea.KeyMsg) tea.Cmd {
	s := m.search
	m.dirty = true
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		s.query += string(msg.Runes)
		s.find(m, min(s.at, len(s.entries)-1))
		return nil
	case tea.KeyBackspace:
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
			s.find(m, len(s.entries)-1)
		}
		return nil
	case tea.KeyCtrlR:
		s.find(m, s.at-1)
		return nil
	case tea.KeyEsc:
		m.endSearch(false)
		return nil
	case tea.KeyEnter:
		m.endSearch(true)
		return nil
	}
	m.endSearch(true)
	return m.handleChatKey(msg)
}

// find shows the newest entry at or before from that holds the query
// (any letter case), or marks the search failing.
func (s *histSearch) find(m *Model, from int) {
	q := strings.ToLower(s.query)
	for i := min(from, len(s.entries)-1); i >= 0; i-- {
		if strings.Contains(strings.ToLower(s.entries[i]), q) {
			s.at, s.failing = i, false
			m.input.set(s.entries[i])
			m.layout()
			return
		}
	}
	s.failing = true
}

// endSearch ends the search: the match stays in the input (take), or
// the input is put back as it was.
func (m *Model) endSearch(take bool) {
	if !take {
		m.input.set(m.search.before)
		m.layout()
	}
	m.search = nil
	m.dirty = true
}

// searchHint is the line above the input while searching.
func (s *histSearch) hint() string {
	q := fmt.Sprintf("%q", s.query)
	switch {
	case len(s.entries) == 0:
		return "search history: the history is empty · esc back"
	case s.failing:
		return "search history: no (older) match for " + q + " · esc back"
	}
	return "search history: " + q + " · enter take · ctrl+r older · esc back"
}
