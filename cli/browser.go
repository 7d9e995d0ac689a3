package cli

import (
	"context"
	"errors"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// authDir is where MCP servers' OAuth logins are kept:
// $XDG_STATE_HOME/latch/auth (~/.local/state/latch/auth).
func authDir(getenv func(string) string) string {
	base := getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		base = filepath.Join(getenv("HOME"), ".local", "state")
	}
	return filepath.Join(base, "latch", "auth")
}

// browserFor is the opener of OAuth login pages: none for -p (no one is
// there to log in: such a server fails at once, saying what to run).
func browserFor(nonInteractive bool, getenv func(string) string) func(context.Context, string) error {
	if nonInteractive {
		return nil
	}
	return func(ctx context.Context, u string) error { return openBrowser(ctx, u, getenv) }
}

// browserCommand is the command that opens an http(s) URL: $BROWSER or
// the platform's opener, the URL as one argument (never through a shell;
// on Windows not through cmd's start, whose parser splits at "&").
func browserCommand(u string, getenv func(string) string) ([]string, error) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") {
		return nil, errors.New("not an http(s) URL")
	}
	switch b := strings.TrimSpace(getenv("BROWSER")); {
	case b != "":
		return []string{b, u}, nil
	case runtime.GOOS == "darwin":
		return []string{"open", u}, nil
	case runtime.GOOS == "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", u}, nil
	}
	return []string{"xdg-open", u}, nil
}

// openBrowser opens an http(s) URL in the browser and waits (at most 10
// s) for the opener to hand it over.
func openBrowser(ctx context.Context, u string, getenv func(string) string) error {
	argv, err := browserCommand(u, getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, argv[0], argv[1:]...).Run()
}

// startBrowser opens an http(s) URL in the browser without waiting for
// the opener (the screen must not wait): a server's link (elicitation).
func startBrowser(u string, getenv func(string) string) error {
	argv, err := browserCommand(u, getenv)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
