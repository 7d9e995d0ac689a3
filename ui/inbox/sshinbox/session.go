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

// session serves one session channel: a pty, then a shell request,
// shows the inbox; any other request is refused.
func (s *server) session(ctx context.Context, ch ssh.Channel, reqs <-chan *ssh.Request, by string, touch func()) {
	defer func() { _ = ch.Close() }()
	var (
		mu      sync.Mutex
		pty     *ptyReq
		started bool
		done    = make(chan struct{})
		// The last size asked for, given to the screen in order (the
		// latest wins) by one goroutine.
		resized = make(chan struct{}, 1)
		size    *tea.WindowSizeMsg
	)
	for {
		var r *ssh.Request
		select {
		case r = <-reqs:
		case <-done:
			return
		case <-ctx.Done():
			return
		}
		if r == nil {
			return
		}
		ok := false
		switch r.Type {
		case "pty-req":
			var p ptyReq
			if ssh.Unmarshal(r.Payload, &p) == nil && !started {
				mu.Lock()
				pty, ok = &p, true
				mu.Unlock()
			}
		case "window-change":
			var w winReq
			if ssh.Unmarshal(r.Payload, &w) == nil {
				touch()
				mu.Lock()
				if pty != nil {
					pty.Cols, pty.Rows = w.Cols, w.Rows
				}
				wm := bound(w.Cols, w.Rows)
				size = &wm
				mu.Unlock()
				select {
				case resized <- struct{}{}:
				default:
				}
				ok = true
			}
		case "shell":
			mu.Lock()
			p := pty
			mu.Unlock()
			if started {
				break
			}
			if p == nil {
				s.refused(by, "a session with no terminal")
				_, _ = io.WriteString(ch.Stderr(), "latch: the inbox needs a terminal: connect with ssh -t\r\n")
				_ = r.Reply(false, nil)
				exit(ch, 1)
				return
			}
			started, ok = true, true
			_ = r.Reply(true, nil)
			r = nil
			go func() {
				defer close(done)
				status := s.run(ctx, ch, *p, by, touch, func(tp *tea.Program) {
					go func() {
						for {
							select {
							case <-resized:
							case <-done:
								return
							}
							mu.Lock()
							wm := size
							size = nil
							mu.Unlock()
							if wm != nil {
								tp.Send(*wm)
							}
						}
					}()
				})
				exit(ch, status)
			}()
		case "exec", "subsystem":
			s.refused(by, "a command (an "+r.Type+" request)")
			_, _ = io.WriteString(ch.Stderr(), "latch: no commands here, only the inbox: connect with ssh -t and no command\r\n")
			_ = r.Reply(false, nil)
			if !started {
				exit(ch, 1)
				return
			}
			r = nil
		case "auth-agent-req@openssh.com":
			s.refused(by, "agent forwarding")
		case "x11-req":
			s.refused(by, "X11 forwarding")
		}
		if r != nil && r.WantReply {
			_ = r.Reply(ok, nil)
		}
	}
}

// exit tells the client the session's exit status.
func exit(ch ssh.Channel, status uint32) {
	_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
}
