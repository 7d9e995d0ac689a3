// Package cli is latch's command line: the chat and every subcommand
// (serve, approvals, approve, reject, policy, sessions, export,
// completion), each a cobra command in a small file of its own, with the
// wiring each needs (settings, the prompt runner, the TUI, the gateway
// beside the chat, terminal queries). The module's main.go only calls Run.
//
// It may import every latch package; none imports it.
package cli

import (
	"latch/session"
	"latch/ui/sanitize"

	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// version is set at build time with -ldflags "-X latch/cli.version=…".
var version = "dev"

// Exit statuses (docs/SESSIONS.md: Scripting).
const (
	exitOK     = 0
	exitError  = 1
	exitUsage  = 2
	exitParked = 3
)

// Run is latch's main: it runs the command line args (without the
// program's name) and returns the process's exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	// Libraries (mcp-go) log through slog; on a full-screen terminal that
	// would tear the screen. What matters reaches the user as events.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer testProfiles(getenv)() // testprofile.go: only in a latchtest build
	return run(args, stdin, stdout, stderr, getenv)
}

// run is main without the process: flags, config, wiring, the program.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	f, err := parseCommandLine(args, stdout, getenv)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		say(stderr, err.Error())
		return exitUsage
	}
	if f.version {
		fmt.Fprintln(stdout, "latch", version)
		return exitOK
	}
	s, err := loadSettings(f, getenv)
	if err != nil {
		say(stderr, err.Error())
		return exitUsage
	}
	switch {
	case f.promptSet:
		s.leftOut = s.cfg.LeaveOutInputs("with -p there is no one to ask for it")
	case f.command == "serve":
		s.leftOut = s.cfg.LeaveOutInputs("latch serve has no one to ask for it")
	}
	for _, w := range s.cfg.Warnings {
		say(stderr, "warning: "+w)
	}
	switch f.command {
	case "sessions":
		return runSessions(s, f.sessions, time.Now(), stdout, stderr)
	case "approvals":
		return listApprovals(s, f.decide.full, terminalWidth(stdout), time.Now(), stdout, stderr)
	case "decide":
		return decideApproval(s, f.decide, time.Now, stdin, stdout, stderr)
	case "policy":
		return runPolicy(s, f, stdout, stderr)
	case "export":
		return runExport(s, f.export, stdout, stderr)
	case "inbox":
		return runInbox(quitRequested(), s, stdin, stdout, stderr)
	case "project":
		return runProject(s, f.project, stdout, stderr)
	}
	if id := f.resume + f.fork; id != "" {
		// Before the screen: a session that is not there, or a gateway's
		// run, is a usage error (--resume and --fork are exclusive).
		if err := session.Resumable(s.stateDir, id); err != nil {
			say(stderr, err.Error())
			return exitUsage
		}
	}
	quit := quitRequested()
	if f.command == "serve" {
		return runServe(quit, s, f, stdin, stdout, stderr)
	}
	if f.promptSet {
		return runPrompt(quit, s, f, stdin, stdout, stderr)
	}
	var gw *chatGateway
	if f.serveAddr != "" {
		// Before the screen: what is wrong with --serve is said here.
		if gw, err = listenBeside(s, f.serveAddr); err != nil {
			say(stderr, err.Error())
			return exitUsage
		}
	}
	// The chat's memory: the pages of the binary that only the start
	// used (startpages_linux.go).
	dropStartPages()
	if err := runTUI(quit, s, f, gw); err != nil {
		say(stderr, err.Error())
		return exitError
	}
	return exitOK
}

// say writes a message on stderr, sanitized: errors quote config files,
// theme files, logs and servers, any of which may hold escapes.
func say(stderr io.Writer, msg string) {
	fmt.Fprintln(stderr, "latch:", sanitize.Text(msg))
}

var (
	quitOnce sync.Once
	quitCtx  context.Context
)

// quitRequested is done once latch gets a quit signal (see quitSignals).
// From its first call until the process ends, a quit signal asks latch to
// quit and never ends the process itself: run returns only after the
// session has closed, which stops every server process latch started,
// whatever state its connect is in. A second Ctrl+C while latch closes
// (the terminal is cooked again by then) is caught too, instead of killing
// latch and leaving the servers running; and so is one that comes after
// the close, before the process has exited (its status stays latch's).
func quitRequested() context.Context {
	quitOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, quitSignals()...)
		go func() {
			<-sigs
			cancel()
		}()
		quitCtx = ctx
	})
	return quitCtx
}

// quitSignals are the signals that quit latch: Ctrl+C where the terminal
// sends it as a signal (before the screen is up, while latch closes, and
// always in -p), SIGTERM, and SIGHUP when the terminal goes away. One that
// was ignored when latch started (nohup, a background job) stays ignored.
func quitSignals() []os.Signal {
	var out []os.Signal
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			out = append(out, sig)
		}
	}
	return out
}
