package sshinbox

import (
	"context"
	"io"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/crypto/ssh"
)

// ptyReq is an SSH pty-req's payload (RFC 4254, 6.2).
type ptyReq struct {
	Term                 string
	Cols, Rows, WPx, HPx uint32
	Modes                string
}

// winReq is a window-change's payload (RFC 4254, 6.7).
type winReq struct {
	Cols, Rows, WPx, HPx uint32
}

// chanSession is one session channel: a pty, then a shell request, shows
// the inbox; any other request is refused.
type chanSession struct {
	s     *server
	ch    ssh.Channel
	by    string
	touch func()

	mu      sync.Mutex
	pty     *ptyReq
	started bool
	done    chan struct{} // closed when the inbox ended
	// The last size asked for, given to the screen in order (the latest
	// wins) by one goroutine.
	resized chan struct{}
	size    *tea.WindowSizeMsg
}

// session serves the session channel ch until the inbox ends, the client
// closes it, a refused request ends it or ctx ends.
func (s *server) session(ctx context.Context, ch ssh.Channel, reqs <-chan *ssh.Request, by string, touch func()) {
	defer func() { _ = ch.Close() }()
	c := &chanSession{s: s, ch: ch, by: by, touch: touch, done: make(chan struct{}), resized: make(chan struct{}, 1)}
	for {
		var r *ssh.Request
		select {
		case r = <-reqs:
		case <-c.done:
			return
		case <-ctx.Done():
			return
		}
		if r == nil || !c.request(ctx, r) {
			return
		}
	}
}

// request answers r; false ends the session.
func (c *chanSession) request(ctx context.Context, r *ssh.Request) bool {
	ok := false
	switch r.Type {
	case "pty-req":
		var p ptyReq
		c.mu.Lock()
		if ssh.Unmarshal(r.Payload, &p) == nil && !c.started {
			c.pty, ok = &p, true
		}
		c.mu.Unlock()
	case "window-change":
		ok = c.windowChange(r.Payload)
	case "shell":
		return c.shell(ctx, r)
	case "exec", "subsystem":
		c.s.refused(c.by, "a command (an "+r.Type+" request)")
		c.mu.Lock()
		started := c.started
		c.mu.Unlock()
		if started {
			_ = r.Reply(false, nil)
			return true
		}
		c.refuse(r, "latch: no commands here, only the inbox: connect with ssh -t and no command\r\n")
		return false
	case "auth-agent-req@openssh.com":
		c.s.refused(c.by, "agent forwarding")
	case "x11-req":
		c.s.refused(c.by, "X11 forwarding")
	}
	if r.WantReply {
		_ = r.Reply(ok, nil)
	}
	return true
}

// windowChange takes a new size for the screen.
func (c *chanSession) windowChange(payload []byte) bool {
	var w winReq
	if ssh.Unmarshal(payload, &w) != nil {
		return false
	}
	c.touch()
	c.mu.Lock()
	if c.pty != nil {
		c.pty.Cols, c.pty.Rows = w.Cols, w.Rows
	}
	wm := bound(w.Cols, w.Rows)
	c.size = &wm
	c.mu.Unlock()
	select {
	case c.resized <- struct{}{}:
	default:
	}
	return true
}

// shell starts the inbox on the session's terminal; with none, it is
// refused and the session ends.
func (c *chanSession) shell(ctx context.Context, r *ssh.Request) bool {
	c.mu.Lock()
	p, started := c.pty, c.started
	c.started = c.started || p != nil
	c.mu.Unlock()
	switch {
	case started:
		_ = r.Reply(false, nil)
		return true
	case p == nil:
		c.s.refused(c.by, "a session with no terminal")
		c.refuse(r, "latch: the inbox needs a terminal: connect with ssh -t\r\n")
		return false
	}
	_ = r.Reply(true, nil)
	go func() {
		defer close(c.done)
		exit(c.ch, c.s.run(ctx, c.ch, *p, c.by, c.touch, c.resize))
	}()
	return true
}

// resize gives the screen of tp each size asked for, in order, until the
// inbox ends.
func (c *chanSession) resize(tp *tea.Program) {
	go func() {
		for {
			select {
			case <-c.resized:
			case <-c.done:
				return
			}
			c.mu.Lock()
			wm := c.size
			c.size = nil
			c.mu.Unlock()
			if wm != nil {
				tp.Send(*wm)
			}
		}
	}()
}

// refuse ends the session on r, saying why on its stderr: the channel is
// closed before r is answered, as OpenSSH shows what came before the
// close but not before a refused request.
func (c *chanSession) refuse(r *ssh.Request, why string) {
	_, _ = io.WriteString(c.ch.Stderr(), why)
	exit(c.ch, 1)
	_ = c.ch.Close()
	_ = r.Reply(false, nil)
}

// exit tells the client the session's exit status.
func exit(ch ssh.Channel, status uint32) {
	_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
}
