// Command latch is a terminal chat assistant for local models served by
// Ollama, with MCP tools behind a permission gate that fails closed.
package main

import (
	"latch/ui/sanitize"

	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit statuses (README: Scripting).
const (
	exitOK     = 0
	exitError  = 1
	exitUsage  = 2
	exitParked = 3
)

func main() {
	// Libraries (mcp-go) log through slog; on a full-screen terminal that
	// would tear the screen. What matters reaches the user as events.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: flags, config, wiring, the program.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	f, err := parseFlags(args, stderr)
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
	for _, w := range s.cfg.Warnings {
		say(stderr, "warning: "+w)
	}
	switch {
	case f.command == "sessions":
		return runSessions(s, stdout, stderr)
	case f.promptSet:
		return runPrompt(s, f, stdin, stdout, stderr)
	}
	if err := runTUI(s, f); err != nil {
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
