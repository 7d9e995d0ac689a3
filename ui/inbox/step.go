package inbox

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/ui/sanitize"
)

// step is the confirmation of a decision: it names the calls and their
// count before anything is decided, and takes keys only once the person
// has paused (guard).
type step struct {
	approve bool
	calls   []Call // what the decision is on: fixed when the step opened
	reason  []rune // a rejection's, typed in the step
	shown   time.Time
	took    bool // it has taken a key: the guard is over
	// rule, when set, is a rule to save (R) rather than a decision: save
	// writes it.
	rule string
	save func() (string, error)
}

// savedMsg says what saving a rule did.
type savedMsg struct{ line string }

// maxReason bounds a rejection's reason, in characters (as latch reject).
const maxReason = 500

// guarded says whether the step still ignores keys at now, the last key
// having come at last.
func (s *step) guarded(now, last time.Time) bool {
	return !s.took && (now.Sub(s.shown) < guard || now.Sub(last) < guard)
}

// open opens the step that decides the marked calls, or else the
// selected one. Calls that cannot be decided here are left out, saying
// why; with none left, no step opens.
func (m *Model) open(approve bool, now time.Time) tea.Cmd {
	var targets []Call
	if len(m.marked) > 0 {
		for _, c := range m.calls {
			if m.marked[key(c)] {
				targets = append(targets, c)
			}
		}
	} else if c, _, ok := m.selected(); ok {
		targets = []Call{c}
	}
	var calls []Call
	for _, c := range targets {
		why := ""
		switch {
		case c.Chat():
			why = fmt.Sprintf("a chat's call: decide it in that chat (/approve %s), or with latch --resume %s --approve %s",
				sanitize.Line(c.ApprovalID), c.Session, sanitize.Line(c.ApprovalID))
		case c.Stopped:
			why = "its gateway (session " + c.Session + ") is not running: start it again to decide"
		case !c.Expires.After(now):
			why = "it expired at " + c.Expires.Local().Format(time.DateTime) + ", undecided"
		}
		if why != "" {
			m.note(sanitize.Line(c.CallID) + ": left out: " + why)
			continue
		}
		calls = append(calls, c)
	}
	if len(calls) == 0 {
		return nil
	}
	m.step = &step{approve: approve, calls: calls, shown: now}
	return tea.Tick(guard, func(time.Time) tea.Msg { return guardMsg{} })
}

// stepKey is a key while the step is open: Esc closes it at any time;
// other keys count only once the guard is over, Enter deciding.
func (m *Model) stepKey(msg tea.KeyMsg, now, prev time.Time) tea.Cmd {
	s := m.step
	if msg.Type == tea.KeyEsc {
		m.step = nil
		m.note("nothing decided")
		return nil
	}
	if s.guarded(now, prev) {
		return tea.Tick(guard, func(time.Time) tea.Msg { return guardMsg{} })
	}
	s.took = true
	switch msg.Type {
	case tea.KeyEnter:
		if s.rule != "" {
			m.step = nil
			return func() tea.Msg {
				said, err := s.save()
				if err != nil {
					said = "no rule saved: " + err.Error()
				}
				return savedMsg{sanitize.Line(said)}
			}
		}
		return m.decide()
	case tea.KeyBackspace:
		if len(s.reason) > 0 {
			s.reason = s.reason[:len(s.reason)-1]
		}
	case tea.KeyRunes, tea.KeySpace:
		if !s.approve && s.rule == "" && len(s.reason)+len(msg.Runes) <= maxReason {
			s.reason = append(s.reason, msg.Runes...)
		}
	}
	return nil
}

// decide sends the step's decision, and closes it.
func (m *Model) decide() tea.Cmd {
	s := m.step
	m.step = nil
	m.busy += len(s.calls)
	for _, c := range s.calls {
		delete(m.marked, key(c))
	}
	dir, by, reason, find := m.o.Dir, m.o.By, sanitize.Line(string(s.reason)), m.o.Find
	calls, approve := s.calls, s.approve
	return func() tea.Msg {
		lines, approved := send(dir, by, approve, reason, calls, find)
		return decidedMsg{n: len(calls), lines: lines, approved: approved}
	}
}
