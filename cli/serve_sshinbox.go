package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/charmbracelet/lipgloss"

	"latch/gateway"
	"latch/session"
	"latch/themes"
	"latch/ui"
	"latch/ui/inbox"
	"latch/ui/inbox/sshinbox"
)

// sshInbox is serve.inbox_ssh, ready to serve: its address listened on
// and its host key read, so that a problem is said before the servers
// start.
type sshInbox struct {
	ln   net.Listener
	opts sshinbox.Options
}

// prepareSSHInbox checks serve.inbox_ssh (the allow_remote rule, the keys
// file, the host key) and listens on its address; nil when it is not
// set.
func prepareSSHInbox(s *settings, asJSON bool, stderr io.Writer) (*sshInbox, error) {
	c := s.cfg.Serve.InboxSSH
	if c == nil {
		return nil, nil
	}
	if err := gateway.CheckRemote("serve.inbox_ssh.listen", c.Listen, s.cfg.Serve.AllowRemote); err != nil {
		return nil, err
	}
	n, err := sshinbox.CheckKeys(c.AuthorizedKeys)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		say(stderr, "latch serve: serve.inbox_ssh.authorized_keys "+c.AuthorizedKeys+" lists no key yet: add one (it is read again on each connection)")
	}
	hk, err := sshinbox.HostKey(s.stateDir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", c.Listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		// Most likely another latch serve on this config serves it; its
		// inbox shows every gateway's calls of the state folder.
		say(stderr, "latch serve: serve.inbox_ssh.listen "+c.Listen+" is in use: this gateway does not serve the inbox over SSH "+
			"(another latch serve on this config may: its inbox shows this gateway's calls too)")
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("serve.inbox_ssh.listen %s: %w", c.Listen, err)
	}
	g := rulesGate(s) // approvals_args.go
	theme, getenv := s.theme, s.getenv
	o := sshinbox.Options{AuthorizedKeys: c.AuthorizedKeys, HostKey: hk,
		Inbox: inbox.Options{Dir: s.stateDir,
			Args: func(p session.ParkedCall, full bool) ([]string, int) {
				return ui.ArgLines(p.Arguments, argsView(g, p, full))
			},
			Line: func(p session.ParkedCall) string { return listedArgs(g, p, false) }},
		Styles: func(r *lipgloss.Renderer) *themes.Styles {
			pal, _, _ := themes.FromEnv(theme, true, getenv, themes.ConfigHome(getenv))
			r.SetColorProfile(themes.RenderProfile(pal, r.ColorProfile()))
			st := themes.BuildFor(pal, r)
			return &st
		},
		Log: func(kind, text string, fields map[string]any) { gateway.LogEvent(stderr, asJSON, kind, text, fields) }}
	return &sshInbox{ln: ln, opts: o}, nil
}

// serve serves the inbox over SSH until ctx ends, after saying where and
// the host key's fingerprint (to check on a first connection).
func (x *sshInbox) serve(ctx context.Context, asJSON bool, stderr io.Writer) {
	addr, fp := x.ln.Addr().String(), sshinbox.Fingerprint(x.opts.HostKey)
	gateway.LogEvent(stderr, asJSON, "inbox_ssh", "inbox over SSH on "+addr+", host key "+fp,
		map[string]any{"addr": addr, "host_key": fp})
	if err := sshinbox.Serve(ctx, x.ln, x.opts); err != nil {
		gateway.LogEvent(stderr, asJSON, "inbox_ssh", "inbox over SSH stopped: "+err.Error(), map[string]any{"error": err.Error()})
	}
}
