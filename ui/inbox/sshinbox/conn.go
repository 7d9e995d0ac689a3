package sshinbox

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// byKey is the Permissions extension that carries who decides.
const byKey = "latch-by"

// serveConn is one SSH connection: its keys checked, then at most one
// session, which may only show the inbox.
func (s *server) serveConn(ctx context.Context, c net.Conn) {
	remote := c.RemoteAddr().String()
	var mu sync.Mutex
	why := "it offered no public key (latch takes public keys only: no password)"
	refuse := func(w string) {
		mu.Lock()
		why = w
		mu.Unlock()
	}
	cfg := &ssh.ServerConfig{
		ServerVersion: "SSH-2.0-latch",
		MaxAuthTries:  6,
		PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			keys, withOptions, err := readKeys(s.o.AuthorizedKeys)
			if err != nil {
				refuse(err.Error())
				return nil, err
			}
			fp := ssh.FingerprintSHA256(key)
			k, ok := keys[string(key.Marshal())]
			if !ok {
				w := "key " + fp + " is not in " + s.o.AuthorizedKeys
				if withOptions > 0 {
					w += fmt.Sprintf(" (%d lines there carry options, which latch does not honour: it lets none of them in)", withOptions)
				}
				refuse(w)
				return nil, fmt.Errorf("key not listed")
			}
			if len(s.slots) == cap(s.slots) {
				refuse(fmt.Sprintf("%d sessions already (the most at once)", cap(s.slots)))
				return nil, fmt.Errorf("too many sessions")
			}
			by := "ssh:" + fp
			if k.comment != "" {
				by += " " + k.comment
			}
			return &ssh.Permissions{Extensions: map[string]string{byKey: by}}, nil
		},
	}
	cfg.AddHostKey(s.o.HostKey)
	_ = c.SetDeadline(time.Now().Add(handshakeBound))
	sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
	s.shaken(c)
	if err != nil {
		mu.Lock()
		w := why
		mu.Unlock()
		if ctx.Err() == nil {
			s.o.Log("inbox_ssh", "inbox over SSH: refused "+remote+": "+w, map[string]any{"remote": remote, "refused": w})
		}
		return
	}
	_ = c.SetDeadline(time.Time{})
	by := sc.Permissions.Extensions[byKey]
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	default: // another took the last slot since this key was checked
		s.o.Log("inbox_ssh", fmt.Sprintf("inbox over SSH: refused %s from %s: %d sessions already (the most at once)", by, remote, cap(s.slots)),
			map[string]any{"remote": remote, "by": by, "refused": "too many sessions"})
		_ = sc.Close()
		return
	}
	s.o.Log("inbox_ssh", "inbox over SSH: "+by+" connected from "+remote, map[string]any{"remote": remote, "by": by})
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := time.AfterFunc(s.o.Idle, func() {
		s.o.Log("inbox_ssh", fmt.Sprintf("inbox over SSH: closed %s's connection after %s with no key", by, s.o.Idle),
			map[string]any{"remote": remote, "by": by, "closed": "idle"})
		_ = sc.Close()
	})
	defer idle.Stop()
	touch := func() { idle.Reset(s.o.Idle) }
	go func() {
		_ = sc.Wait()
		cancel()
	}()
	go s.globalRequests(reqs, by)
	opened := false
	for nc := range chans {
		switch {
		case nc.ChannelType() != "session":
			s.refused(by, "a "+channelName(nc.ChannelType())+" channel")
			_ = nc.Reject(ssh.Prohibited, "latch serves the inbox only: no port forwarding, no other channel")
		case opened:
			_ = nc.Reject(ssh.Prohibited, "one inbox a connection")
		default:
			ch, creqs, err := nc.Accept()
			if err != nil {
				continue
			}
			opened = true
			go func() {
				s.session(cctx, ch, creqs, by, touch)
				_ = sc.Close()
			}()
		}
	}
}

// globalRequests refuses every request on the connection: port
// forwarding (tcpip-forward) and all else.
func (s *server) globalRequests(reqs <-chan *ssh.Request, by string) {
	for r := range reqs {
		switch r.Type {
		case "tcpip-forward", "cancel-tcpip-forward", "streamlocal-forward@openssh.com", "cancel-streamlocal-forward@openssh.com":
			s.refused(by, "port forwarding")
		}
		if r.WantReply {
			_ = r.Reply(false, nil)
		}
	}
}

// refused logs what a connected key asked for and was refused.
func (s *server) refused(by, what string) {
	s.o.Log("inbox_ssh", "inbox over SSH: refused "+what+" to "+by, map[string]any{"by": by, "refused": what})
}

// channelName is a channel type as the log names it: the known ones by
// name, any other as "other" (the type is the client's text).
func channelName(t string) string {
	switch t {
	case "direct-tcpip", "forwarded-tcpip", "direct-streamlocal@openssh.com", "x11", "auth-agent@openssh.com":
		return t
	}
	return "other"
}
