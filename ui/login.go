package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

// Logins are MCP servers' OAuth logins. Login and Logout block: they run
// in commands; Login ends when its ctx does (Esc).
type Logins interface {
	Login(ctx context.Context, name string) error
	Logout(ctx context.Context, name string) error
}

// loginState is the login waiting in the browser, if any.
type loginState struct {
	server string
	url    string             // the page, for ctrl+y (sanitized)
	cancel context.CancelFunc // Esc
}

// loginDoneMsg reports the end of /login or /logout.
type loginDoneMsg struct {
	verb, name string
	err        error
}

// cmdLogin is /login NAME: log in (in the browser) and connect.
func (m *Model) cmdLogin(args []string) tea.Cmd {
	name, ok := m.serverArg("login", args, false)
	if !ok {
		return nil
	}
	lg, ok := m.backendLogins()
	if !ok {
		return nil
	}
	if m.login.cancel != nil {
		m.login.cancel() // a new login replaces the one waiting
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.login = loginState{server: name, cancel: cancel}
	m.addNotice("logging in to " + sanitize.Line(name) + "… (Esc cancels)")
	return func() tea.Msg { return loginDoneMsg{verb: "login", name: name, err: lg.Login(ctx, name)} }
}

// cmdLogout is /logout NAME: revoke and forget the login, close the server.
func (m *Model) cmdLogout(args []string) tea.Cmd {
	name, ok := m.serverArg("logout", args, false)
	if !ok {
		return nil
	}
	lg, ok := m.backendLogins()
	if !ok {
		return nil
	}
	return func() tea.Msg {
		return loginDoneMsg{verb: "logout", name: name, err: lg.Logout(context.Background(), name)}
	}
}

// backendLogins is the backend's logins, if it has them.
func (m *Model) backendLogins() (Logins, bool) {
	lg, ok := m.srv.(Logins)
	if !ok {
		m.addError("this session cannot log in to servers")
	}
	return lg, ok
}

// handleLoginURL shows the page a login opened, on a line of its own so
// that it can be opened by hand (ctrl+y copies it).
func (m *Model) handleLoginURL(e *session.LoginURLEvent) {
	u := sanitize.Line(e.URL)
	if m.login.server == e.Server {
		m.login.url = u
	}
	m.addNotice(fmt.Sprintf("log in to %s in your browser. If it did not open, open this page (ctrl+y copies it):\n%s",
		sanitize.Line(e.Server), u))
}

// handleLoginDone reports the end of /login or /logout.
func (m *Model) handleLoginDone(msg loginDoneMsg) {
	name := sanitize.Line(msg.name)
	if msg.verb == "login" && m.login.server == msg.name {
		m.login.cancel()
		m.login = loginState{}
	}
	switch {
	case msg.err != nil:
		m.addError(fmt.Sprintf("/%s %s: %s", msg.verb, name, sanitizeText(msg.err.Error())))
	case msg.verb == "login":
		m.addNotice("logged in to " + name)
	default:
		m.addNotice("logged out of " + name + ": its tokens are revoked (where it supports that) and deleted")
	}
	m.dirty = true
}

// cancelLogin is Esc while a login waits: it is given up.
func (m *Model) cancelLogin() bool {
	if m.login.cancel == nil {
		return false
	}
	m.login.cancel()
	m.addNotice("login to " + sanitize.Line(m.login.server) + " cancelled")
	m.login = loginState{}
	return true
}

// writeLogin adds who is logged in to an OAuth server, and until when, to
// /servers.
func writeLogin(b *strings.Builder, st session.ServerStatus) {
	if t := st.Login.LoginText(time.Now()); t != "" {
		fmt.Fprintf(b, "  %-16s login: %s\n", "", sanitize.Line(t))
	}
}
