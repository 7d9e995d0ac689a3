package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/permissions"
	"latch/ui/sanitize"
)

// cmdMode shows or changes a permission mode: /mode, /mode MODE,
// /mode SERVER MODE. Only the person at the keyboard gets here.
func (m *Model) cmdMode(args []string) tea.Cmd {
	switch len(args) {
	case 0:
		var b strings.Builder
		fmt.Fprintf(&b, "mode: %s", m.perms.Mode())
		for _, n := range m.srv.ServerNames() {
			if md, ok := m.perms.ServerMode(n); ok {
				fmt.Fprintf(&b, "\n  %s: %s", n, md)
			}
		}
		b.WriteString("\nmodes: read_only (only allow-listed tools), ask (y/n for others), approve (others wait for /approve), auto (everything runs)")
		m.addNotice(b.String())
	case 1:
		md, err := permissions.ParseMode(args[0])
		if err != nil {
			m.addError("/mode: " + err.Error())
			return nil
		}
		m.perms.SetMode(md)
		m.addNotice("mode: " + md.String())
		m.warnAuto(md, "every tool")
	case 2:
		md, err := permissions.ParseMode(args[1])
		if err != nil {
			m.addError("/mode: " + err.Error())
			return nil
		}
		if err := m.perms.SetServerMode(args[0], md); err != nil {
			m.addError(fmt.Sprintf("/mode: %s (servers: %s)", sanitizeText(err.Error()), strings.Join(m.srv.ServerNames(), ", ")))
			return nil
		}
		m.addNotice(fmt.Sprintf("mode of %s: %s", args[0], md))
		m.warnAuto(md, "every tool of "+sanitize.Line(args[0]))
	default:
		m.badArgs("mode")
	}
	m.dirty = true
	return nil
}

// warnAuto says, when a mode was set to auto, what it lets through (whose:
// "every tool", "every tool of fs") runs unasked now, the destructive
// tools too, and how to go back.
func (m *Model) warnAuto(md permissions.Mode, whose string) {
	if md == permissions.Auto {
		m.addNotice("⚠ auto: " + whose + " now runs without asking, destructive ones too " +
			"(whatever a server claims about them); /mode read_only or /mode ask to go back")
	}
}

// cmdAllow lists the allow-list with where each entry came from, or grants
// a tool for the rest of the session, or always (--always: saved to the
// grants file). Only the person at the keyboard gets here.
func (m *Model) cmdAllow(args []string) tea.Cmd {
	if text := strings.Join(args, " "); strings.Contains(text, "(") {
		m.addRule("/allow", text) // an argument rule (rulecmds.go)
		return nil
	}
	always := false
	if n := len(args); n > 0 && args[n-1] == "--always" {
		always, args = true, args[:n-1]
		if len(args) == 0 {
			m.badArgs("allow")
			return nil
		}
	}
	switch len(args) {
	case 0:
		m.listAllow()
	case 1:
		if strings.ContainsAny(args[0], "*?[") {
			m.addError("/allow: matching is exact; list each tool")
			return nil
		}
		name := sanitize.Line(args[0])
		if always {
			if err := m.perms.GrantAlways(args[0]); err != nil {
				m.addError("/allow: " + sanitizeText(err.Error()))
				return nil
			}
			m.addNotice(fmt.Sprintf("%s is allowed always, as it is defined now (saved in %s; /revoke %s undoes it)",
				name, sanitize.Line(m.perms.SavedGrantsFile()), name))
			return nil
		}
		if err := m.perms.Grant(args[0]); err != nil {
			m.addError("/allow: " + sanitizeText(err.Error()))
			return nil
		}
		m.addNotice(fmt.Sprintf("%s is allowed for the rest of this session", name))
	default:
		m.badArgs("allow")
	}
	return nil
}

// listAllow shows the allow-list and where each entry came from.
func (m *Model) listAllow() {
	entries := m.perms.AllowList()
	if len(entries) == 0 {
		m.addNotice("the allow-list is empty: in read_only mode every tool call is denied (/allow NAME grants one; /tools lists them)")
		return
	}
	var b strings.Builder
	b.WriteString("allow-list:")
	saved := false
	for _, e := range entries {
		src := string(e.Source)
		if e.Source == permissions.FromSaved {
			saved = true
			src += " (" + sanitize.Line(m.perms.SavedGrantsFile()) + ")"
		}
		if e.Args != "" {
			src += ", these arguments only: " + firstLine(e.Args, 60)
		}
		fmt.Fprintf(&b, "\n  %-40s %s", sanitize.Line(e.Name), src)
	}
	if saved {
		b.WriteString("\nsaved grants apply while the tool's definition is unchanged; /revoke NAME removes one")
	}
	m.addNotice(b.String())
}

// cmdRevoke removes a tool's saved and session grants.
func (m *Model) cmdRevoke(args []string) tea.Cmd {
	if len(args) != 1 {
		m.badArgs("revoke")
		return nil
	}
	removed, err := m.perms.Revoke(args[0])
	for _, r := range removed {
		m.addNotice("removed " + sanitizeText(r))
	}
	if err != nil {
		m.addError("/revoke: " + sanitizeText(err.Error()))
	}
	return nil
}

func (m *Model) cmdApprovals(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("approvals")
		return nil
	}
	aps := m.asks.Approvals()
	if len(aps) == 0 {
		m.addNotice("no calls are waiting for approval")
		return nil
	}
	var b strings.Builder
	b.WriteString("waiting for approval:")
	for _, ap := range aps {
		raw, _ := json.Marshal(ap.Arguments)
		args := string(raw)
		if len(args) > 120 {
			args = args[:120] + "…"
		}
		from := ""
		if en := m.cardFor(ap.CallID); en != nil && en.card.client != "" {
			from = "  from " + sanitize.Line(en.card.client)
		}
		fmt.Fprintf(&b, "\n  %s  %s  %s  (since %s)%s", ap.ID, sanitize.Line(ap.Name), sanitize.Line(args), ap.Created.Local().Format("15:04:05"), from)
	}
	b.WriteString("\n/approve ID runs it once · /reject ID denies it")
	m.addNotice(b.String())
	return nil
}

func (m *Model) decideCmd(name string, args []string, approve bool) tea.Cmd {
	if len(args) != 1 {
		m.badArgs(name)
		return nil
	}
	m.dropModals(func(md *modal) bool { return md.approval == args[0] })
	return m.decide(args[0], approve)
}

func (m *Model) cmdApprove(args []string) tea.Cmd { return m.decideCmd("approve", args, true) }
func (m *Model) cmdReject(args []string) tea.Cmd  { return m.decideCmd("reject", args, false) }

func (m *Model) cmdRetry(args []string) tea.Cmd {
	if len(args) != 1 {
		m.badArgs("retry")
		return nil
	}
	if err := m.resume.Retry(args[0]); err != nil {
		m.addError("/retry: " + sanitizeText(err.Error()))
		return nil
	}
	if en := m.cardFor(args[0]); en != nil && en.card.state == cardUnknown {
		// It goes through the gate again: its card shows how that goes.
		en.card.state, en.card.inDoubt = cardRequested, false
		en.invalidate()
		m.chat.dirty = true
	}
	m.afterResolve()
	return nil
}

func (m *Model) cmdDismiss(args []string) tea.Cmd {
	if len(args) != 1 {
		m.badArgs("dismiss")
		return nil
	}
	if err := m.resume.Dismiss(args[0]); err != nil {
		m.addError("/dismiss: " + sanitizeText(err.Error()))
		return nil
	}
	if en := m.cardFor(args[0]); en != nil {
		en.card.state, en.card.inDoubt, en.card.dismissed = cardUnknown, false, true
		en.invalidate()
		m.chat.dirty = true
	}
	m.afterResolve()
	return nil
}

// afterResolve says what still blocks a resumed turn, if anything.
func (m *Model) afterResolve() {
	if why := m.resume.Blocked(); why != "" {
		m.addNotice(sanitizeText(why))
	} else {
		m.running = true
	}
}
