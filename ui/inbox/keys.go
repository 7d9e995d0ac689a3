package inbox

import (
	"time"

	"latch/ui/sanitize"

	tea "github.com/charmbracelet/bubbletea"
)

// Keys of the list (the footer says them):
//
//	↑/↓ k/j   select          space  mark or unmark, then next
//	a         mark every call like this one (same tool, same arguments)
//	y / n     approve / reject the marked calls, or the selected one
//	/         filter by client, tool or server; esc clears it and the marks
//	pgup/pgdn the arguments   f  every value whole    R  save a rule
//	L         every note of this inbox, scrollable (esc closes it)
//	q, ctrl+c quit

// maxFilter bounds the filter, in characters.
const maxFilter = 64

// maxEarly bounds the keys kept while the first read is under way.
const maxEarly = 64

// key takes a key: the step's while one is open, the filter's while it
// is typed, else the list's.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Bubble Tea gives keys that came in one read (typed fast, a
		// busy machine, ssh) as one message: each is a key of its own,
		// in order, as if typed one by one.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			one := msg
			one.Runes = []rune{r}
			cmds = append(cmds, m.key(one))
		}
		return tea.Batch(cmds...)
	}
	now := m.o.Now()
	prev := m.prevKey
	m.prevKey = now
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	if !m.read {
		// The list is not read yet (a backlog of thousands takes a
		// moment): a key would act on an empty list and be lost. It is
		// kept, and taken once the list is in (replay).
		if msg.String() == "q" {
			return tea.Quit
		}
		if len(m.early) < maxEarly {
			m.early = append(m.early, msg)
		}
		return nil
	}
	if m.step != nil {
		return m.stepKey(msg, now, prev)
	}
	if m.all.open {
		m.notesKey(msg)
		return nil
	}
	if m.filtering {
		m.filterKey(msg)
		return nil
	}
	return m.listKey(msg, now)
}

// replay takes the keys that came before the first read, once it is
// in, in the order typed, as if typed now: a step one of them opens
// takes none of the keys after it (they come within its pause), so keys
// typed ahead decide nothing.
func (m *Model) replay() tea.Cmd {
	if m.read {
		return nil
	}
	m.read = true
	var cmds []tea.Cmd
	for _, k := range m.early {
		cmds = append(cmds, m.key(k))
	}
	m.early = nil
	return tea.Batch(cmds...)
}

// listKey is a key on the list.
func (m *Model) listKey(msg tea.KeyMsg, now time.Time) tea.Cmd {
	switch msg.String() {
	case "q":
		return tea.Quit
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "home":
		m.move(-len(m.calls))
	case "end":
		m.move(len(m.calls))
	case " ":
		if c, _, ok := m.selected(); ok {
			if k := key(c); m.marked[k] {
				delete(m.marked, k)
			} else {
				m.marked[k] = true
			}
			m.move(1)
		}
	case "a":
		m.markLike()
	case "esc":
		m.filter = ""
		clear(m.marked)
	case "/":
		m.filtering = true
	case "pgdown", "J":
		m.scroll += max(m.argRows()-1, 1)
	case "pgup", "K":
		m.scroll = max(m.scroll-max(m.argRows()-1, 1), 0)
	case "f":
		m.full = !m.full
	case "y":
		return m.open(true, now)
	case "n":
		return m.open(false, now)
	case "R":
		return m.saveRule(now)
	case "L":
		m.openNotes()
	}
	return nil
}

// filterKey is a key typed into the filter: Enter keeps it, Esc drops
// it.
func (m *Model) filterKey(msg tea.KeyMsg) {
	switch msg.Type {
	case tea.KeyEnter:
		m.filtering = false
	case tea.KeyEsc:
		m.filtering, m.filter = false, ""
	case tea.KeyBackspace:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case tea.KeyRunes, tea.KeySpace:
		if len([]rune(m.filter))+len(msg.Runes) <= maxFilter {
			m.filter += string(msg.Runes)
		}
	}
	if v := m.visible(); len(v) > 0 {
		if _, _, ok := m.selected(); !ok {
			m.sel, m.scroll = key(v[0]), 0
		}
	}
}

// saveRule opens the step that saves, through Options.Rule, the
// narrowest rule that allows calls like the selected one: shown as it
// will be written, written only on Enter.
func (m *Model) saveRule(now time.Time) tea.Cmd {
	c, _, ok := m.selected()
	switch {
	case !ok:
		return nil
	case m.o.Rule == nil:
		m.note("R: no rule is saved from here (over SSH it would write the gateway machine's config); run latch inbox on that machine")
		return nil
	case c.Chat():
		m.note("R: a chat's call is not a gateway's; its rule is saved in that chat (A in its box)")
		return nil
	}
	shown, save, err := m.o.Rule(c.ParkedCall)
	if err != nil {
		m.note("no rule to save: " + sanitize.Line(err.Error()))
		return nil
	}
	m.step = &step{calls: []Call{c}, rule: sanitize.Line(shown), save: save, shown: now}
	return tea.Tick(guard, func(time.Time) tea.Msg { return guardMsg{} })
}
