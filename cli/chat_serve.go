package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"

	"latch/gateway"
	"latch/session"
	"latch/ui"
)

// chatGateway is the gateway beside the chat (latch --serve ADDR): the
// HTTP gateway of latch serve --listen, with the same token, Host, Origin
// and remote rules, over the chat's own session (its servers, gate,
// grants and log). A call that would ask is asked in the chat, naming its
// client; parked calls are decided there, or with latch approve.
type chatGateway struct {
	opts    gateway.HTTPOptions
	ln      net.Listener
	clients atomic.Int64
	done    sync.WaitGroup
}

// listenBeside checks --serve ADDR as latch serve checks --listen (a
// token, the address, remote needs allow_remote and TLS) and listens,
// before the screen opens: what is wrong is said on the terminal.
func listenBeside(s *settings, addr string) (*chatGateway, error) {
	token, err := serveToken(s)
	if err != nil {
		return nil, err
	}
	o := gateway.HTTPOptions{Addr: addr, Token: token, Clients: serveClients(s, nil, false), AllowRemote: s.cfg.Serve.AllowRemote,
		TLSCert: s.cfg.Serve.TLSCert, TLSKey: s.cfg.Serve.TLSKey}
	if o.TLSCert != "" && o.TLSKey != "" {
		// Loaded again when it serves; a bad pair is said now, not
		// under the screen.
		if _, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey); err != nil {
			return nil, fmt.Errorf("--serve %s: serve.tls_cert and serve.tls_key: %v", addr, err)
		}
	}
	ln, err := gateway.Listen(o)
	if err != nil {
		// The rules are latch serve --listen's; the flag given was --serve.
		if rest, ok := strings.CutPrefix(err.Error(), "--listen"); ok {
			return nil, errors.New("--serve" + rest)
		}
		return nil, err
	}
	return &chatGateway{opts: o, ln: ln}, nil
}

// status is where the gateway listens and how many clients it has, for
// the status line.
func (g *chatGateway) status() (string, int) {
	return serveURL(g.ln.Addr().String(), g.opts), int(g.clients.Load())
}

// start serves the gateway over sess once its servers' first connect is
// over (the tools are then known), until ctx ends: calls through the
// chat's gate, decisions sent with latch approve taken from the session's
// inbox. A resumed session first takes up the calls its clients parked
// before, under the same ids. send wakes the screen when a client comes
// or goes. wait returns once it has stopped.
func (g *chatGateway) start(ctx context.Context, s *settings, sess *session.Session, resumed bool, send func(tea.Msg)) {
	sub := sess.Subscribe()
	g.done.Add(1)
	go func() {
		defer g.done.Done()
		defer func() { _ = g.ln.Close() }() // Serve closes it too; before it runs, this does
		wctx, cancel := context.WithTimeout(ctx, connectBound(s.cfg.Servers))
		sess.WaitServers(wctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if resumed {
			// A log that cannot be read was said when the session
			// resumed; its calls are then unknown to their pollers.
			_, _ = sess.ResumeGateway()
		}
		gw := gateway.New(gateway.Options{Session: sess, Expose: s.cfg.Serve.Expose, Version: version, LeftOut: s.leftOut,
			ParkUnlisted: s.cfg.Serve.ParkUnlisted, TTL: s.cfg.Serve.ApprovalTTL, AwaitPoll: s.cfg.Serve.AwaitPoll,
			Limits: gatewayLimits(s.cfg.Serve.ServeLimits), NotifyCommand: s.cfg.Serve.NotifyCommand, OnClients: func(n int) {
				g.clients.Store(int64(n))
				go send(ui.ServingChanged{})
			}})
		go gw.Follow(ctx, sub)
		go sess.WatchInbox(ctx, session.InboxEvery, nil)
		_ = gw.Serve(ctx, g.ln, g.opts)
	}()
}

// wait returns once the gateway has stopped serving.
func (g *chatGateway) wait() { g.done.Wait() }

// serving is ui.Options.Serving: nil without a gateway.
func (g *chatGateway) serving() func() (string, int) {
	if g == nil {
		return nil
	}
	return g.status
}
