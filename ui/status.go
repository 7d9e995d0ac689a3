package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"latch/ui/sanitize"
)

// statusLine draws the top line: brand, model, mode, the context meter
// (after the first reply), servers, pending approvals, host, session, and on the right what latch is doing. When the
// line is too narrow, the least useful parts go first: the session id,
// then the host.
func (m *Model) statusLine() string {
	st := m.st.Status
	model := sanitize.Line(m.models.Model())
	if model == "" {
		model = "no model"
	}
	sep := st.Item.Render(" │ ")
	parts := []string{st.Brand.Render("latch"), st.Item.Render(model)}
	mode := m.perms.Mode()
	modeStyle := st.Item
	if mode.String() == "auto" {
		modeStyle = st.Failure // the risky mode stands out
	}
	parts = append(parts, modeStyle.Render(mode.String()))
	if meter := ctxMeter(m.st, m.models.Context()); meter != "" {
		parts = append(parts, meter)
	}
	if conn, total, failed := m.serverCounts(); total > 0 {
		sv := st.Item.Render(fmt.Sprintf("servers %d/%d", conn, total))
		if failed > 0 {
			sv += st.Failure.Render(fmt.Sprintf(" ✗%d", failed))
		}
		parts = append(parts, sv)
	}
	if m.pending > 0 {
		parts = append(parts, st.Busy.Render(fmt.Sprintf("⏸ %d pending", m.pending)))
	}
	if m.serving != nil {
		addr, n := m.serving()
		parts = append(parts, st.Item.Render(fmt.Sprintf("serving %s · %d %s", sanitize.Line(addr), n, plural(n, "client", "clients"))))
	}
	if m.sess.LogProblem() != "" {
		parts = append(parts, st.Failure.Render("log ✗ unsaved, no tool calls"))
	}
	optional := []string{st.Item.Render(sanitize.Line(m.sess.Host())), st.Item.Render(m.sess.ID())}

	var right string
	switch {
	case m.running && (m.modal != nil || m.pending > 0):
		right = st.Busy.Render("waiting for you ")
	case m.running && m.anyRunning():
		right = st.Busy.Render("running a tool… ")
	case m.running:
		right = st.Busy.Render("streaming… ")
	case m.lastTPS > 0:
		right = st.Item.Render(fmt.Sprintf("%.1f tok/s ", m.lastTPS))
	}
	if m.chat.scrolledUp() {
		right = st.Item.Render("↑ history (ctrl+end) ") + right
	}
	var left string
	for keep := len(optional); keep >= 0; keep-- {
		left = " " + strings.Join(append(append([]string(nil), parts...), optional[:keep]...), sep)
		if ansi.StringWidth(left)+ansi.StringWidth(right) < m.width {
			break
		}
	}
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		left = ansi.Truncate(left, max(m.width-ansi.StringWidth(right)-1, 0), "…")
		gap = max(m.width-ansi.StringWidth(left)-ansi.StringWidth(right), 0)
	}
	return left + st.Bar.Render(strings.Repeat(" ", gap)) + right
}

// hintLine is the rule between chat and input, with the key hints.
func (m *Model) hintLine() string {
	var parts []string
	for i, k := range m.keys.ShortHelp() {
		h := k.Help()
		parts = append(parts, h.Key+" "+h.Desc)
		if i == 0 {
			parts = append(parts, m.selectHint())
		}
	}
	hint := " " + strings.Join(parts, " · ") + " "
	switch {
	case m.search != nil:
		hint = " " + m.search.hint() + " "
	case m.quitArmed():
		hint = " Ctrl+C again to quit "
	}
	if ansi.StringWidth(hint)+2 > m.width {
		hint = ansi.Truncate(hint, max(m.width-2, 0), "… ")
	}
	rest := m.width - ansi.StringWidth(hint) - 2
	return m.st.Input.Separator.Render("──" + hint + strings.Repeat("─", max(rest, 0)))
}
