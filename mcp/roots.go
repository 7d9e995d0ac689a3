package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// RootURI is the file:// URI of a directory: absolute, cleaned, escaped
// (spaces, non-ASCII) by net/url.
func RootURI(dir string) string {
	p := filepath.ToSlash(filepath.Clean(dir))
	if !strings.HasPrefix(p, "/") { // a Windows drive path
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// rootsHandler answers a server's roots/list with the manager's roots. It
// is both mcp-go's client.RootsHandler and its in-process server.RootsHandler.
type rootsHandler struct{ m *Manager }

func (h rootsHandler) ListRoots(context.Context, mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	dirs := h.m.Roots()
	out := make([]mcpgo.Root, len(dirs))
	for i, d := range dirs {
		out[i] = mcpgo.Root{URI: RootURI(d), Name: filepath.Base(d)}
	}
	return &mcpgo.ListRootsResult{Roots: out}, nil
}

// Roots are the directories servers are told of (roots/list), absolute.
func (m *Manager) Roots() []string {
	m.rootsMu.Lock()
	defer m.rootsMu.Unlock()
	return slices.Clone(m.roots)
}

// AddRoot adds a directory (~ expanded, relative to the working directory;
// it must exist) to the roots for this session and tells every connected
// server latch offered roots to. It returns the directory as added and
// how many servers were told.
func (m *Manager) AddRoot(dir string) (string, int, error) {
	abs, err := m.rootPath(dir)
	if err != nil {
		return "", 0, err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", 0, fmt.Errorf("directory not found: %s", abs)
	case err != nil:
		return "", 0, fmt.Errorf("cannot read %s: %v", abs, errors.Unwrap(err))
	case !fi.IsDir():
		return "", 0, fmt.Errorf("not a directory: %s", abs)
	}
	m.rootsMu.Lock()
	if slices.Contains(m.roots, abs) {
		m.rootsMu.Unlock()
		return "", 0, fmt.Errorf("already a root: %s", abs)
	}
	m.roots = append(m.roots, abs)
	if !slices.Contains(m.rootsEver, abs) {
		m.rootsEver = append(m.rootsEver, abs)
	}
	m.rootsMu.Unlock()
	return abs, m.rootsChanged(), nil
}

// RemoveRoot removes a directory from the roots for this session and tells
// the servers, as AddRoot.
func (m *Manager) RemoveRoot(dir string) (string, int, error) {
	abs, err := m.rootPath(dir)
	if err != nil {
		return "", 0, err
	}
	m.rootsMu.Lock()
	i := slices.Index(m.roots, abs)
	if i < 0 {
		m.rootsMu.Unlock()
		return "", 0, fmt.Errorf("not a root: %s (roots: %s)", abs, strings.Join(m.roots, ", "))
	}
	m.roots = slices.Delete(m.roots, i, i+1)
	m.rootsMu.Unlock()
	return abs, m.rootsChanged(), nil
}

func (m *Manager) rootPath(dir string) (string, error) {
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home := m.opts.Getenv("HOME")
		if home == "" {
			return "", errors.New("~ needs HOME, which is not set")
		}
		dir = filepath.Join(home, dir[1:])
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return abs, nil
}

// rootsChanged sends notifications/roots/list_changed to every connected
// server latch offered roots to, in parallel, and says how many got it.
func (m *Manager) rootsChanged() int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for _, name := range m.order {
		s := m.servers[name]
		s.mu.Lock()
		c := s.conn
		s.mu.Unlock()
		if c == nil || !c.roots {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), min(s.cfg.timeout(), 10*time.Second))
			defer cancel()
			if err := c.client.RootListChanges(ctx); err != nil {
				s.log.add("latch: roots/list_changed not sent: " + m.red.apply(shortError(err)))
				return
			}
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return n
}

// allLogs is the level a stateless-era connection asks for until /logs
// NAME LEVEL sets one: every message. A server of that era sends none for
// a request that names no level (SEP-2575), where a legacy server sends
// what it likes unasked — every level, for most — so without it /logs
// NAME would go quiet when a server moves to the new era.
const allLogs = mcpgo.LoggingLevelDebug

// askForLogs makes a stateless-era connection's requests, mcp-go's and
// latch's own, name allLogs in their _meta. A legacy one is left alone:
// nothing is sent.
func (c *conn) askForLogs() {
	if !isModern(c.client.ProtocolVersion()) {
		return
	}
	var req mcpgo.SetLevelRequest
	req.Params.Level = allLogs
	_ = c.client.SetLevel(context.Background(), req) //nolint:staticcheck // on this era it only records the level for _meta, never fails
	c.logLevel.Store(string(allLogs))
}

// LogLevels are the levels of logging/setLevel, least severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// SetLogLevel asks a connected server to send log messages of level and
// above (logging/setLevel).
func (m *Manager) SetLogLevel(name, level string) error {
	if !slices.Contains(LogLevels, level) {
		return fmt.Errorf("unknown log level %q (levels: %s)", level, strings.Join(LogLevels, ", "))
	}
	s, err := m.get(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		return fmt.Errorf("%s is not connected (/connect %s)", name, name)
	}
	if c.client.GetServerCapabilities().Logging == nil {
		return fmt.Errorf("%s does not offer logging (no logging capability)", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout())
	defer cancel()
	var req mcpgo.SetLevelRequest
	req.Params.Level = mcpgo.LoggingLevel(level)
	// On protocol 2026-07-28 it only sets the level mcp-go's requests
	// carry in _meta; latch's own carry c.logLevel (era.go).
	if err := c.client.SetLevel(ctx, req); err != nil { //nolint:staticcheck // deprecated: logging/setLevel is of the 2025-11-25 era only
		return fmt.Errorf("%s: logging/setLevel: %s", name, m.red.apply(shortError(err)))
	}
	c.logLevel.Store(level)
	return nil
}
