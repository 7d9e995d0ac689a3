package main

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

// openBrowser opens an http(s) URL with $BROWSER or the platform's
// opener, as one argument (never through a shell).
func openBrowser(ctx context.Context, u string, getenv func(string) string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") {
		return errors.New("not an http(s) URL")
	}
	var argv []string
	switch b := strings.TrimSpace(getenv("BROWSER")); {
	case b != "":
		argv = []string{b, u}
	case runtime.GOOS == "darwin":
		argv = []string{"open", u}
	case runtime.GOOS == "windows":
		argv = []string{"rundll32", "url.dll,FileProtocolHandler", u}
	default:
		argv = []string{"xdg-open", u}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	return cmd.Run()
}
