package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

// rootsBackend is what /roots needs beyond Servers: the directories the
// servers are told of. *session.Session has it.
type rootsBackend interface {
	Roots() []string
	AddRoot(dir string) (string, int, error)
	RemoveRoot(dir string) (string, int, error)
}

// logLevelSetter is what /logs SERVER LEVEL needs. *session.Session has it.
type logLevelSetter interface {
	SetLogLevel(name, level string) error
}

// cmdDoneMsg is the end of a command that ran in the background: a notice
// or an error.
type cmdDoneMsg struct {
	notice string
	err    string
}

func (m *Model) handleCmdDone(msg cmdDoneMsg) {
	if msg.err != "" {
		m.addError(msg.err)
	} else if msg.notice != "" {
		m.addNotice(msg.notice)
	}
	m.dirty = true
}

const rootsUsage = "usage: /roots [add|remove DIR]"

// cmdRoots lists the roots (/roots) or adds or removes one for the session
// (/roots add|remove DIR); the change is sent to the connected servers in
// the background.
func (m *Model) cmdRoots(args []string) tea.Cmd {
	rb, ok := m.srv.(rootsBackend)
	if !ok {
		m.addError("/roots: not available here")
		return nil
	}
	if len(args) == 0 {
		roots := rb.Roots()
		if len(roots) == 0 {
			m.addNotice("no roots: servers are told of no directory (/roots add DIR)")
			return nil
		}
		var b strings.Builder
		b.WriteString("roots (the directories servers are told of):")
		for _, r := range roots {
			fmt.Fprintf(&b, "\n  %s  %s", sanitize.Line(r), sanitize.Line(session.RootURI(r)))
		}
		m.addNotice(b.String())
		return nil
	}
	if len(args) != 2 || (args[0] != "add" && args[0] != "remove") {
		m.addError(rootsUsage)
		return nil
	}
	verb, dir := args[0], args[1]
	return func() tea.Msg {
		f, done := rb.AddRoot, "added"
		if verb == "remove" {
			f, done = rb.RemoveRoot, "removed"
		}
		abs, n, err := f(dir)
		if err != nil {
			return cmdDoneMsg{err: "/roots " + verb + ": " + sanitizeText(err.Error())}
		}
		return cmdDoneMsg{notice: fmt.Sprintf("root %s: %s (%d connected servers told)", done, sanitize.Line(abs), n)}
	}
}

// setLogLevel is /logs SERVER LEVEL, in the background.
func (m *Model) setLogLevel(name, level string) tea.Cmd {
	ls, ok := m.srv.(logLevelSetter)
	if !ok {
		m.addError("/logs: setting a server's log level is not available here")
		return nil
	}
	if !slices.Contains(session.LogLevels, level) {
		m.addError(fmt.Sprintf("/logs %s: unknown level %q (levels: %s)", name, sanitize.Line(level), strings.Join(session.LogLevels, ", ")))
		return nil
	}
	// Which way it goes depends on the server's protocol era.
	way := "logging/setLevel"
	for _, st := range m.srv.Servers() {
		if st.Name == name && st.ProtocolVersion == "2026-07-28" {
			way = "in each request's _meta: protocol 2026-07-28 has no logging/setLevel"
		}
	}
	return func() tea.Msg {
		if err := ls.SetLogLevel(name, level); err != nil {
			return cmdDoneMsg{err: "/logs " + name + " " + level + ": " + sanitizeText(err.Error())}
		}
		return cmdDoneMsg{notice: fmt.Sprintf("%s: log level set to %s, %s (/logs %s shows its log)", name, level, way, name)}
	}
}
