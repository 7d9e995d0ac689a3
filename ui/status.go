package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/ui/sanitize"
)

// statusLine draws the top line: brand, model, mode, the context meter
// (after the first reply), servers, pending approvals, host, session, and on the right what latch is doing. When the
// line is too narrow, the least useful parts go first: the session id,
// then the host.
//
// The line is drawn again only when what it shows changes (statusInputs):
// lipgloss builds each part's style anew, a twentieth of a streamed
// frame's CPU when it was drawn at every frame.
func (m *Model) statusLine() string {
	in := m.statusInputs()
	if m.status.line != "" && in == m.status.in {
		return m.status.line
	}
	m.status = statusCache{in: in, line: m.drawStatus(in)}
	return m.status.line
}

// statusCache is the status line last drawn, and what it was drawn from.
// A change of theme empties it (applyTheme).
type statusCache struct {
	in   statusInputs
	line string
}

// statusInputs is everything the status line shows.
type statusInputs struct {
	profile                      termenv.Profile
	width                        int
	model, mode                  string
	ctx                          statusCtx
	conn, total, failed, pending int
	serving                      bool
	servingAddr                  string
	clients                      int
	logProblem                   bool
	host, id                     string
	doing                        statusDoing
	tps                          float64
	scrolledUp                   bool
}

// statusCtx is the part of the context's figures the meter shows.
type statusCtx struct {
	prompt, eval, numCtx, regained, next int
	truncated                            bool
}

// statusDoing is what the right of the status line says latch is doing.
type statusDoing int

const (
	doingNothing statusDoing = iota
	doingWaiting
	doingTool
	doingStreaming
)

func (m *Model) statusInputs() statusInputs {
	c := m.models.Context()
	in := statusInputs{
		profile: lipgloss.ColorProfile(), width: m.width,
		model: sanitize.Line(m.models.Model()), mode: m.perms.Mode().String(),
		ctx:     statusCtx{prompt: c.Prompt, eval: c.Eval, numCtx: c.NumCtx, regained: c.Regained, next: c.Next, truncated: c.Truncated},
		pending: m.pending, logProblem: m.sess.LogProblem() != "",
		host: sanitize.Line(m.sess.Host()), id: m.sess.ID(),
		tps: m.lastTPS, scrolledUp: m.chat.scrolledUp(),
	}
	in.conn, in.total, in.failed = m.serverCounts()
	if m.serving != nil {
		in.serving = true
		addr, n := m.serving()
		in.servingAddr, in.clients = sanitize.Line(addr), n
	}
	switch {
	case m.running && (m.modal != nil || m.pending > 0):
		in.doing = doingWaiting
	case m.running && m.anyRunning():
		in.doing = doingTool
	case m.running:
		in.doing = doingStreaming
	}
	return in
}

// drawStatus draws the status line of in.
func (m *Model) drawStatus(in statusInputs) string {
	st := m.st.Status
	model := in.model
	if model == "" {
		model = "no model"
	}
	sep := st.Item.Render(" │ ")
	parts := []string{st.Brand.Render("latch"), st.Item.Render(model)}
	modeStyle := st.Item
	if in.mode == "auto" {
		modeStyle = st.Failure // the risky mode stands out
	}
	parts = append(parts, modeStyle.Render(in.mode))
	c := session.ContextInfo{Prompt: in.ctx.prompt, Eval: in.ctx.eval, NumCtx: in.ctx.numCtx,
		Regained: in.ctx.regained, Next: in.ctx.next, Truncated: in.ctx.truncated}
	if meter := ctxMeter(m.st, c); meter != "" {
		parts = append(parts, meter)
	}
	if in.total > 0 {
		sv := st.Item.Render(fmt.Sprintf("servers %d/%d", in.conn, in.total))
		if in.failed > 0 {
			sv += st.Failure.Render(fmt.Sprintf(" ✗%d", in.failed))
		}
		parts = append(parts, sv)
	}
	if in.pending > 0 {
		parts = append(parts, st.Busy.Render(fmt.Sprintf("⏸ %d pending", in.pending)))
	}
	if in.serving {
		parts = append(parts, st.Item.Render(fmt.Sprintf("serving %s · %d %s", in.servingAddr, in.clients, plural(in.clients, "client", "clients"))))
	}
	if in.logProblem {
		parts = append(parts, st.Failure.Render("log ✗ unsaved, no tool calls"))
	}
	optional := []string{st.Item.Render(in.host), st.Item.Render(in.id)}

	var right string
	switch {
	case in.doing == doingWaiting:
		right = st.Busy.Render("waiting for you ")
	case in.doing == doingTool:
		right = st.Busy.Render("running a tool… ")
	case in.doing == doingStreaming:
		right = st.Busy.Render("streaming… ")
	case in.tps > 0:
		right = st.Item.Render(fmt.Sprintf("%.1f tok/s ", in.tps))
	}
	if in.scrolledUp {
		right = st.Item.Render("↑ history (ctrl+end) ") + right
	}
	var left string
	for keep := len(optional); keep >= 0; keep-- {
		left = " " + strings.Join(append(append([]string(nil), parts...), optional[:keep]...), sep)
		if ansi.StringWidth(left)+ansi.StringWidth(right) < in.width {
			break
		}
	}
	gap := in.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		left = ansi.Truncate(left, max(in.width-ansi.StringWidth(right)-1, 0), "…")
		gap = max(in.width-ansi.StringWidth(left)-ansi.StringWidth(right), 0)
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
	line := "──" + hint + strings.Repeat("─", max(rest, 0))
	if profile := lipgloss.ColorProfile(); m.hint.line != line || m.hint.profile != profile || m.hint.out == "" {
		// Styled again only when it changes, as the status line.
		m.hint = hintCache{line: line, profile: profile, out: m.st.Input.Separator.Render(line)}
	}
	return m.hint.out
}

// hintCache is the hint line last drawn: its text, in what colours, and
// styled. A change of theme empties it (applyTheme).
type hintCache struct {
	line    string
	profile termenv.Profile
	out     string
}
