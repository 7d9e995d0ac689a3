package ui

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

// serverState is what the UI knows of one server, from its events.
type serverState struct {
	state   string
	summary string
}

// handleServerStatus shows a server's change of state: failures loudly (a
// line in the chat with the reason, exit status and stderr tail), the rest
// as a short notice; the status line counts them.
func (m *Model) handleServerStatus(e *session.ServerStatusEvent) {
	if m.servers == nil {
		m.servers = map[string]serverState{}
	}
	prev := m.servers[e.Server]
	m.servers[e.Server] = serverState{state: e.State, summary: e.Summary}
	name := sanitize.Line(e.Server)
	switch e.State {
	case session.StateConnected.String():
		if prev.summary != e.Summary {
			m.addNotice(fmt.Sprintf("⚡ %s %s", name, sanitize.Line(e.Summary)))
		}
	case session.StateFailed.String(), session.StateDisconnected.String():
		m.addError(e.Failure() + fmt.Sprintf("\n/connect %s retries · /logs %s shows its log", name, name))
	case session.StateAuthExpired.String():
		// A login expired (/login), or a token refused: what, from where, and what to do.
		m.addError(fmt.Sprintf("MCP server %s %s", name, sanitize.Line(e.Summary)))
	case session.StateClosed.String():
		if prev.state != "" && prev.state != e.State {
			m.addNotice(name + " closed")
		}
	}
	m.dirty = true
}

// serverCounts returns connected and total servers, and how many failed.
func (m *Model) serverCounts() (connected, total, failed int) {
	for _, s := range m.servers {
		switch s.state {
		case session.StateConnected.String():
			connected++
		case session.StateFailed.String(), session.StateDisconnected.String(), session.StateAuthExpired.String():
			failed++
		}
	}
	return connected, len(m.srv.ServerNames()), failed
}

// serverDoneMsg reports the end of /connect, /close or /token.
type serverDoneMsg struct {
	verb, name string
	err        error
}

func (m *Model) serverCmd(verb, name string, f func(string) error) tea.Cmd {
	return func() tea.Msg { return serverDoneMsg{verb: verb, name: name, err: f(name)} }
}

func (m *Model) handleServerDone(msg serverDoneMsg) {
	if msg.err != nil && msg.verb != "connect" && msg.verb != "token" {
		// connect failures are reported by the status event already.
		m.addError(fmt.Sprintf("/%s %s: %s", msg.verb, sanitize.Line(msg.name), sanitizeText(msg.err.Error())))
	}
	m.dirty = true
}

// serverArg checks a server-name argument; all is allowed where said.
func (m *Model) serverArg(cmd string, args []string, allowAll bool) (string, bool) {
	if len(args) != 1 {
		m.badArgs(cmd)
		return "", false
	}
	if allowAll && args[0] == "all" {
		return "all", true
	}
	for _, n := range m.srv.ServerNames() {
		if n == args[0] {
			return n, true
		}
	}
	names := m.srv.ServerNames()
	if len(names) == 0 {
		m.addError("no MCP servers are configured (add them under mcpServers in the config file)")
	} else {
		m.addError(fmt.Sprintf("/%s: no server %q (servers: %s)", cmd, sanitize.Line(args[0]), strings.Join(names, ", ")))
	}
	return "", false
}

func (m *Model) cmdConnect(args []string) tea.Cmd {
	name, ok := m.serverArg("connect", args, true)
	if !ok {
		return nil
	}
	// Connecting takes a while (up to the connect timeout): say so at
	// once; the server's state change says how it went.
	if name == "all" {
		m.addNotice("connecting every server…")
	} else {
		m.addNotice("connecting " + sanitize.Line(name) + "…")
	}
	return m.serverCmd("connect", name, m.srv.ConnectServer)
}

func (m *Model) cmdClose(args []string) tea.Cmd {
	name, ok := m.serverArg("close", args, true)
	if !ok {
		return nil
	}
	// Closing a closed server changes nothing, so no event would say a
	// word: say it here.
	for _, st := range m.srv.Servers() {
		if st.Name == name && st.State == session.StateClosed {
			m.addNotice(fmt.Sprintf("%s is closed already (/connect %s opens it)", sanitize.Line(name), sanitize.Line(name)))
			return nil
		}
	}
	return m.serverCmd("close", name, m.srv.CloseServer)
}

func (m *Model) cmdServers(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("servers")
		return nil
	}
	sts := m.srv.Servers()
	if len(sts) == 0 {
		m.addNotice(strings.TrimRight("no MCP servers are configured (add them under mcpServers in the config file)\n"+m.sourceLines(), "\n"))
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %-16s %-9s %-10s %5s  %s\n", "SERVER", "TRANSPORT", "PROTOCOL", "TOOLS", "STATE")
	for _, st := range sts {
		fmt.Fprintf(&b, "  %-16s %-9s %-10s %5d  %s\n", st.Name, st.Transport, st.ProtocolVersion, st.Tools,
			sanitize.Line(st.Summary()))
		writeCapabilities(&b, st)
		writeLogin(&b, st)
		if st.LastError != "" && st.State == session.StateConnected {
			fmt.Fprintf(&b, "  %-16s last error: %s\n", "", sanitize.Line(st.LastError))
		}
	}
	b.WriteString(m.sourceLines())
	m.addNotice(strings.TrimRight(b.String(), "\n"))
	return nil
}

// sourceLines are the files the servers were read from (Options.Sources).
func (m *Model) sourceLines() string {
	var b strings.Builder
	for i, s := range m.sources {
		label := "read from:"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(&b, "  %-10s %s\n", label, sanitize.Line(s))
	}
	return b.String()
}

// writeCapabilities adds what a connected server offers, which of its
// requests latch answers, and which it cannot answer on this transport.
func writeCapabilities(b *strings.Builder, st session.ServerStatus) {
	line := func(label string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(b, "  %-16s %s %s\n", "", label, sanitize.Line(strings.Join(names, ", ")))
		}
	}
	line("offers:", st.Offers)
	line("latch answers:", st.Answers)
	line("not offered on legacy SSE (it cannot carry a server's requests):", st.NotOffered)
}

// toolOffers is what /tools needs beyond Servers: what the model is
// offered, and turning a server's offer off and on. *session.Session has
// it; a backend without it gets the plain list.
type toolOffers interface {
	ToolOfferOf(server string) (session.ToolOffer, error)
	SetToolsOffered(server string, on bool) error
}

const toolsUsage = "usage: /tools [NAME [off|on]]"

// cmdTools lists the tools as the model is offered them (/tools [NAME]),
// with their count and the estimated tokens of their definitions, or turns
// a server's offer off or on (/tools NAME off|on).
func (m *Model) cmdTools(args []string) tea.Cmd {
	if len(args) > 2 {
		m.addError(toolsUsage)
		return nil
	}
	name := ""
	if len(args) > 0 {
		n, ok := m.serverArg("tools", args[:1], false)
		if !ok {
			return nil
		}
		name = n
	}
	offers, _ := m.srv.(toolOffers)
	if len(args) == 2 {
		return m.setToolsOffered(offers, name, args[1])
	}
	tools, err := m.srv.Tools(name)
	if err != nil {
		m.addError(sanitizeText(err.Error()))
		return nil
	}
	if len(tools) == 0 {
		m.addNotice("no tools: no server is connected, or they offer none (/servers)")
		return nil
	}
	if offers == nil {
		m.addNotice(toolLines(tools, false))
		return nil
	}
	o, err := offers.ToolOfferOf(name)
	if err != nil {
		m.addError(sanitizeText(err.Error()))
		return nil
	}
	m.addNotice(offerText(o))
	return nil
}

// setToolsOffered is /tools NAME off|on.
func (m *Model) setToolsOffered(offers toolOffers, name, verb string) tea.Cmd {
	if verb != "off" && verb != "on" {
		m.addError(toolsUsage)
		return nil
	}
	if offers == nil {
		m.addError("/tools: turning a server's tools off is not available here")
		return nil
	}
	if err := offers.SetToolsOffered(name, verb == "on"); err != nil {
		m.addError(sanitizeText(err.Error()))
		return nil
	}
	if verb == "off" {
		m.addNotice(fmt.Sprintf("%s: its tools are no longer offered to the model (/tools %s on offers them again; "+
			"a call to one still goes through the permission gate)", name, name))
	} else {
		m.addNotice(fmt.Sprintf("%s: its tools are offered to the model again (those its tools list names, if it has one)", name))
	}
	return nil
}

// offerText is /tools: the count and estimated tokens of what is offered,
// the budget, each offered tool, then what is not offered and why.
func offerText(o session.ToolOffer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "offered to the model: %d tools, ~%d tokens of definitions (estimated: JSON bytes / 4)",
		len(o.Offered), o.Tokens)
	if len(o.Offered) > o.MaxTools {
		fmt.Fprintf(&b, "\nmore than ollama.max_tools (%d): each turn offers the %d most relevant to the conversation, and any you name",
			o.MaxTools, o.MaxTools)
	}
	if len(o.Offered) > 0 {
		b.WriteString("\n" + toolLines(o.Offered, true))
	}
	if len(o.LeftOut) > 0 {
		fmt.Fprintf(&b, "\nleft out of the last request by ollama.max_tools (%d): %s", len(o.LeftOut), toolNames(o.LeftOut))
	}
	if len(o.Off) > 0 {
		fmt.Fprintf(&b, "\nturned off (/tools NAME on): %s", sanitize.Line(strings.Join(o.Off, ", ")))
	}
	if len(o.NotOffered) > 0 {
		fmt.Fprintf(&b, "\nnot offered (%d, turned off or not in the server's tools list): %s", len(o.NotOffered), toolNames(o.NotOffered))
	}
	for _, srv := range slices.Sorted(maps.Keys(o.Unknown)) {
		fmt.Fprintf(&b, "\n⚠ %s: its tools list names tools it does not have: %s", sanitize.Line(srv),
			sanitize.Line(strings.Join(o.Unknown[srv], ", ")))
	}
	return b.String()
}

// toolLines lists tools by name, with their hints, estimated tokens (when
// tokens) and description.
func toolLines(tools []session.Tool, tokens bool) string {
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	var b strings.Builder
	for _, t := range tools {
		hint := ""
		switch {
		case t.ReadOnly:
			hint = " [read-only]"
		case t.DestructiveUnsaid():
			hint = " [may change data]"
		case t.Destructive:
			hint = " [destructive]"
		}
		if tokens {
			hint += fmt.Sprintf(" ~%d tokens", session.EstimateTokens(t))
		}
		fmt.Fprintf(&b, "%s%s\n", sanitize.Line(t.Name), hint)
		if d := strings.TrimSpace(t.Description); d != "" {
			if len(d) > 300 {
				d = d[:300] + "…"
			}
			b.WriteString("    " + sanitize.Line(d) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Model) cmdLogs(args []string) tea.Cmd {
	if len(args) == 2 {
		name, ok := m.serverArg("logs", args[:1], false)
		if !ok {
			return nil
		}
		return m.setLogLevel(name, args[1])
	}
	name, ok := m.serverArg("logs", args, false)
	if !ok {
		return nil
	}
	lines, err := m.srv.ServerLogs(name)
	if err != nil {
		m.addError(sanitizeText(err.Error()))
		return nil
	}
	if len(lines) == 0 {
		m.addNotice(name + ": the log is empty")
		return nil
	}
	const show = 200
	if len(lines) > show {
		lines = append([]string{fmt.Sprintf("… %d earlier lines", len(lines)-show)}, lines[len(lines)-show:]...)
	}
	m.addNotice("log of " + name + ":\n" + sanitizeText(strings.Join(lines, "\n")))
	return nil
}

// tokenPrompt is the masked input of /token: the token is kept in memory
// only, never echoed, logged or shown.
type tokenPrompt struct {
	server string
	in     textinput.Model
}

func (m *Model) cmdToken(args []string) tea.Cmd {
	name, ok := m.serverArg("token", args, false)
	if !ok {
		return nil
	}
	for _, st := range m.srv.Servers() {
		if st.Name == name && st.Transport == session.TransportStdio {
			// A token is sent as an HTTP header; a stdio server has none,
			// and one typed here would be thrown away.
			m.addError(fmt.Sprintf("/token: %s is a stdio server and takes no token: its credentials go in its env (mcpServers.%s.env in the config file), then /connect %s",
				name, name, name))
			return nil
		}
	}
	in := textinput.New()
	in.Prompt = "token for " + name + ": "
	in.EchoMode = textinput.EchoPassword
	in.EchoCharacter = '•'
	in.Placeholder = "paste the token, enter to use it, esc to cancel"
	in.Focus()
	m.token = &tokenPrompt{server: name, in: in}
	m.input.dirty = true
	return nil
}

func (m *Model) handleTokenKey(msg tea.KeyMsg) tea.Cmd {
	p := m.token
	m.dirty = true
	switch msg.Type {
	case tea.KeyEsc:
		m.token = nil
		m.addNotice("/token cancelled")
		return nil
	case tea.KeyEnter:
		tok := strings.TrimSpace(p.in.Value())
		m.token = nil
		if tok == "" {
			m.addNotice("/token cancelled: no token given")
			return nil
		}
		srv := m.srv
		return m.serverCmd("token", p.server, func(name string) error { return srv.SetToken(name, tok) })
	}
	var cmd tea.Cmd
	p.in, cmd = p.in.Update(asText(msg))
	return cmd
}

// toolNames lists tools by their model-facing names, on one line.
func toolNames(ts []session.Tool) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return sanitize.Line(strings.Join(names, ", "))
}
