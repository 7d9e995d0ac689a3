package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/ui/sanitize"
)

// cmdDeny denies a tool's calls for the rest of the session, or only those
// whose arguments match: /deny NAME, /deny TOOL(ARG=PATTERN, …). Only the
// person at the keyboard gets here.
func (m *Model) cmdDeny(args []string) tea.Cmd {
	if len(args) == 0 {
		m.badArgs("deny")
		return nil
	}
	m.addRule("/deny", strings.Join(args, " "))
	return nil
}

// addRule adds an argument rule of /allow or /deny (flag) for the session
// and says what it does.
func (m *Model) addRule(flag, text string) {
	r, err := m.perms.AddRule(flag, text)
	if err != nil {
		m.addError(sanitizeText(err.Error()))
		return
	}
	what := "runs without asking where the mode lets a rule allow (read_only, ask)"
	if r.DecisionName() == "deny" {
		what = "is denied, whatever else allows it"
	}
	m.addNotice("for the rest of this session, a call of " + sanitize.Line(r.Compact()) + " " + what +
		"; /why CALL_ID shows which rule decided a call")
}
