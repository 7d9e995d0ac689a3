// Package sshinbox serves latch inbox over SSH, for latch serve's
// serve.inbox_ssh: the same screen, decided from anywhere (a phone's SSH
// client). It lets in only the public keys a file lists (read again on
// each connection), offers no password, no shell, no command, no port or
// agent forwarding, and records the decider as the key's fingerprint and
// comment. A fault in one SSH screen closes that session alone and is
// logged, never printed to the process's stdout (under latch serve
// --stdio, the MCP stream).
//
// It may import ui/inbox, themes, ui/sanitize and ui/notice of latch's,
// with golang.org/x/crypto/ssh, Bubble Tea and lipgloss; never gateway,
// mcp or Ollama (the gateway is reached, as by the inbox, through the
// state folder).
package sshinbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"
	"golang.org/x/crypto/ssh"

	"latch/themes"
	"latch/ui/inbox"
)

// Defaults of Options.
const (
	DefaultIdle        = 10 * time.Minute
	DefaultMaxSessions = 4
	handshakeBound     = 20 * time.Second
	// maxHandshakes bounds the connections that have not yet shown a
	// listed key. They take no session's slot (a stranger who opens
	// connections and says nothing cannot lock the person out): when
	// one more comes, the one waiting longest is closed, so a person's
	// handshake, which takes well under a second, is dropped only by a
	// flood of maxHandshakes connections in that second.
	maxHandshakes = 16
)

// Options is what the SSH inbox needs.
type Options struct {
	// Inbox is the screen's: Dir, Args, Line, Rule. By, Styles, Ring and
	// Notice are set for each SSH session.
	Inbox inbox.Options
	// AuthorizedKeys is the file of the public keys let in, one a line
	// as in ~/.ssh/authorized_keys (a line with options is left out). It
	// is read again on each connection; it must be the user's own, 0600
	// or stricter.
	AuthorizedKeys string
	// HostKey is the server's key (HostKey).
	HostKey ssh.Signer
	// Styles builds the screen's styles for a session's renderer;
	// the dark theme when nil.
	Styles func(r *lipgloss.Renderer) *themes.Styles
	// Log writes a line to the gateway's log: kind names it, text is
	// shown (sanitized by the writer), fields go in its JSON form. Nil
	// logs nothing.
	Log func(kind, text string, fields map[string]any)
	// Idle ends a connection after this long with no key from it
	// (DefaultIdle when 0).
	Idle time.Duration
	// MaxSessions bounds the sessions at once (DefaultMaxSessions when
	// 0): a listed key's connection beyond it is refused at its
	// authentication. Connections still in their handshake are bounded
	// apart (maxHandshakes), and take no session's slot.
	MaxSessions int
}

// Fingerprint is the host key's SHA256 fingerprint, as SSH clients show
// it on a first connection.
func Fingerprint(k ssh.Signer) string { return ssh.FingerprintSHA256(k.PublicKey()) }

// Serve serves the inbox over SSH on ln until ctx ends, then closes ln
// and every connection.
func Serve(ctx context.Context, ln net.Listener, o Options) error {
	if o.HostKey == nil {
		return errors.New("sshinbox: no host key")
	}
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.Log == nil {
		o.Log = func(string, string, map[string]any) {}
	}
	s := &server{o: o, slots: make(chan struct{}, o.MaxSessions), conns: map[net.Conn]bool{}}
	go func() {
		<-ctx.Done()
		_ = ln.Close()
		s.closeAll()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !s.track(c) {
			_ = c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.untrack(c)
			s.serveConn(ctx, c)
		}()
	}
}

// server is one Serve's state.
type server struct {
	o     Options
	slots chan struct{} // one per session
	mu    sync.Mutex
	conns map[net.Conn]bool
	// waiting holds the connections in their handshake, oldest first.
	waiting []net.Conn
	done    bool
}

// track keeps c to close when Serve ends, as in its handshake (closing
// the one waiting longest when maxHandshakes are); false once Serve has
// ended. The closed one is logged after s.mu is let go: a slow log
// writer stalls no other connection's handshake.
func (s *server) track(c net.Conn) bool {
	old, ok := s.trackLocked(c)
	if old != nil {
		_ = old.Close()
		s.o.Log("inbox_ssh", fmt.Sprintf("inbox over SSH: closed the connection from %s, the longest of %d still in their handshake", old.RemoteAddr(), maxHandshakes),
			map[string]any{"remote": old.RemoteAddr().String(), "refused": "too many handshakes"})
	}
	return ok
}

// trackLocked is track's part under s.mu: it keeps c, and returns the
// connection it let go of to make room, if any, for track to close.
func (s *server) trackLocked(c net.Conn) (old net.Conn, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil, false
	}
	if len(s.waiting) >= maxHandshakes {
		old = s.waiting[0]
		s.waiting = s.waiting[1:]
	}
	s.conns[c] = true
	s.waiting = append(s.waiting, c)
	return old, true
}

// shaken says c's handshake ended (it authenticated, or failed).
func (s *server) shaken(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range s.waiting {
		if w == c {
			s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
			return
		}
	}
}

// untrack closes c and forgets it.
func (s *server) untrack(c net.Conn) {
	_ = c.Close()
	s.shaken(c)
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// closeAll closes every connection.
func (s *server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	for c := range s.conns {
		_ = c.Close()
	}
}
