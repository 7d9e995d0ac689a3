package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"latch/config"
	"latch/gateway"
	"latch/session"
)

// serveArgs is what follows `latch serve`.
type serveArgs struct {
	stdio  bool   // --stdio
	listen string // --listen HOST:PORT
	quiet  bool   // --quiet: no line per call
	json   bool   // --json: each line on stderr a JSON object
	fresh  bool   // --fresh: a new session, not the parked calls of the last run
	as     string // --as NAME: the client over stdio, as the config that starts latch names it
}

// newServeCmd is `latch serve --stdio | --listen ADDR [--quiet] [--json]
// [--fresh] [--as NAME]`.
func newServeCmd(f *flags) *cobra.Command {
	a := &f.serve
	cmd := &cobra.Command{
		Use:   "serve (--stdio | --listen ADDR)",
		Short: "serve the servers' tools to other MCP clients, through the gate",
		Long: "Serve the configured servers' tools to other MCP clients (a gateway), each call through the permission gate;\n" +
			"a call that needs a person waits (parks) until latch approve or latch reject decides it.",
		Example: `  latch serve --stdio --mode ask --config ~/.config/latch/config.json
  LATCH_SERVE_TOKEN=… latch serve --listen 127.0.0.1:8765 --quiet`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.command = "serve"
			if a.stdio == (a.listen != "") {
				return errors.New("latch serve: give --stdio or --listen HOST:PORT (one of them)")
			}
			return gateway.CheckAs(a.as, a.stdio)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&a.stdio, "stdio", false, "serve MCP on stdin and stdout (for a client that starts latch)")
	fs.StringVar(&a.listen, "listen", "", "serve MCP over streamable HTTP at http://`ADDR`/mcp (e.g. 127.0.0.1:8765); needs a bearer token")
	fs.BoolVar(&a.quiet, "quiet", false, "no line on stderr per call")
	fs.BoolVar(&a.json, "json", false, "write each line on stderr as a JSON object (for machines)")
	fs.BoolVar(&a.fresh, "fresh", false, "start a new session rather than take up the calls the last run on this config parked")
	fs.StringVar(&a.as, "as", "", "with --stdio, name the client `NAME` (unverified) for rules with a \"client\" and the log")
	return cmd
}

// serveToken is the bearer token --listen requires: serve.token_env's
// variable, serve.token_file's content, or $LATCH_SERVE_TOKEN. Errors
// name where it was looked for, never what was found.
func serveToken(s *settings) (string, error) {
	c := s.cfg.Serve
	switch {
	case c.TokenEnv != "":
		t := strings.TrimSpace(s.getenv(c.TokenEnv))
		if t == "" {
			return "", fmt.Errorf("serve.token_env: $%s is not set or empty", c.TokenEnv)
		}
		return t, nil
	case c.TokenFile != "":
		b, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return "", fmt.Errorf("serve.token_file: cannot read %s: %v", c.TokenFile, errors.Unwrap(err))
		}
		t := strings.TrimSpace(string(b))
		if t == "" {
			return "", fmt.Errorf("serve.token_file: %s is empty", c.TokenFile)
		}
		return t, nil
	}
	return strings.TrimSpace(s.getenv(serveTokenVar)), nil
}

// runServe is latch serve: the configured servers connected as the chat
// connects them, their exposed tools served over MCP, every call through
// the gate, until the client goes (stdio) or a quit signal.
func runServe(quit context.Context, s *settings, f flags, stdin io.Reader, stdout, stderr io.Writer) int {
	a := f.serve
	tuneServeGC(s.getenv)
	var hopts gateway.HTTPOptions
	if a.listen != "" {
		token, err := serveToken(s)
		if err != nil {
			say(stderr, err.Error())
			return exitUsage
		}
		hopts = gateway.HTTPOptions{Addr: a.listen, Token: token, Clients: serveClients(s, stderr, a.json), AllowRemote: s.cfg.Serve.AllowRemote,
			TLSCert: s.cfg.Serve.TLSCert, TLSKey: s.cfg.Serve.TLSKey,
			Ready: func(addr string) {
				u := serveURL(addr, hopts)
				gateway.LogEvent(stderr, a.json, "start", "listening on "+u, map[string]any{"transport": "http", "url": u, "version": version})
			}}
		if err := gateway.CheckBind(hopts); err != nil {
			say(stderr, err.Error())
			return exitUsage
		}
	}
	sshIn, err := prepareSSHInbox(s, a.json, stderr) // serve_sshinbox.go
	if err != nil {
		say(stderr, "latch serve: "+err.Error())
		return exitUsage
	}
	if sshIn != nil {
		defer func() { _ = sshIn.ln.Close() }()
	}
	o := sessionOptions(s, f, true)
	o.Client, o.Gateway = ollamaClient(s), true
	if !a.fresh {
		o.ID = pickGatewayRun(s)
	}
	sess := session.New(o)
	if o.ID != "" && sess.LogProblem() != "" && session.Running(s.stateDir, o.ID) {
		// Another gateway took that run between the pick and the lock.
		sess.Close()
		o.ID = ""
		sess = session.New(o)
	}
	// After the session closes (defers run last first): its log's parked
	// calls marked (session.MarkParked), so that the next run's start
	// reads only their lines, however long the log grew in this one.
	defer func() {
		if sess.LogProblem() == "" {
			_ = session.MarkParked(s.stateDir, sess.ID())
		}
	}()
	defer sess.Close()
	if why := sess.LogProblem(); why != "" {
		say(stderr, "latch serve: "+why+": a gateway runs no call it cannot record")
		return exitError
	}
	if err := saveGatewayID(s, sess.ID()); err != nil {
		say(stderr, "latch serve: cannot record the session id, so a restart will not take up its parked calls: "+err.Error())
	}
	sub := sess.Subscribe()
	sess.Start()
	sess.StartServers()
	wctx, cancel := context.WithTimeout(quit, connectBound(s.cfg.Servers))
	sess.WaitServers(wctx)
	cancel()
	if quit.Err() != nil {
		return exitOK
	}
	if o.ID != "" {
		_, err := sess.ResumeGateway()
		if err != nil {
			say(stderr, "latch serve: "+err.Error())
			return exitError
		}
		if !a.quiet {
			logResumed(stderr, a.json, o.ID, sess.GatewayWaiting())
		}
	}
	var logw io.Writer
	if !a.quiet {
		logw = stderr
	}
	g := gateway.New(gateway.Options{Session: sess, Expose: s.cfg.Serve.Expose, Log: logw, JSON: a.json, Version: version,
		LeftOut: s.leftOut, As: a.as,
		ParkUnlisted: s.cfg.Serve.ParkUnlisted, TTL: s.cfg.Serve.ApprovalTTL, AwaitPoll: s.cfg.Serve.AwaitPoll,
		Limits: gatewayLimits(s.cfg.Serve.ServeLimits), NotifyCommand: s.cfg.Serve.NotifyCommand})
	ctx, stop := context.WithCancel(quit)
	defer stop()
	go g.Follow(ctx, sub)
	go sess.WatchInbox(ctx, session.InboxEvery, g.LogDecision)
	sshDone := make(chan struct{})
	if sshIn != nil {
		go func() { defer close(sshDone); sshIn.serve(ctx, a.json, stderr) }()
	} else {
		close(sshDone)
	}
	defer func() { stop(); <-sshDone }()
	if a.stdio {
		gateway.LogEvent(logw, a.json, "start", "serving on stdin and stdout, session "+sess.ID(),
			map[string]any{"transport": "stdio", "session": sess.ID(), "version": version})
		in, done := pollableStdin(stdin)
		err = g.ServeStdio(ctx, in, stdout)
		done()
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			err = nil
		}
	} else {
		err = g.ServeHTTP(ctx, hopts)
	}
	if err != nil {
		if a.json {
			gateway.LogEvent(stderr, true, "stop", "", map[string]any{"error": err.Error()})
		} else {
			say(stderr, "latch serve: "+err.Error())
		}
		return exitError
	}
	gateway.LogEvent(logw, a.json, "stop", "stopped", map[string]any{})
	return exitOK
}

// serveURL is the URL clients connect to.
func serveURL(addr string, o gateway.HTTPOptions) string {
	scheme := "http"
	if o.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + addr + gateway.Path
}

// connectBound bounds the wait for the servers' first connect: the
// longest connect_timeout, and a little for the status to be published.
func connectBound(cs []config.ServerConfig) time.Duration {
	d := config.DefaultConnectTimeout
	for _, c := range cs {
		d = max(d, c.ConnectTimeout)
	}
	return d + 2*time.Second
}
