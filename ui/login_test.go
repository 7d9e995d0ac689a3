package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/oauthtest"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestLoginLogoutOnScreen: a server that needs a login says /login NAME;
// /login shows the page, logs in and connects; /servers says who is
// logged in and until when; /logout says what it did. No token, ever, is
// on the screen, in the session log, or in an event's --json form.
func TestLoginLogoutOnScreen(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	logDir, authDir := t.TempDir(), t.TempDir()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261130-120000-abcdef", LogDir: logDir, AuthDir: authDir, OpenBrowser: oauthtest.Browse,
		Servers: []session.ServerConfig{{Name: "web", Transport: "http", URL: as.URL()}}})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	var wire strings.Builder
	sess.Start()
	sess.StartServers()
	h.until(func() bool { return strings.Contains(m.View(), "/login web") })

	h.typeText("/login web")
	cmd := h.key(tea.KeyEnter)
	if !strings.Contains(m.View(), "logging in to web") {
		t.Fatalf("/login says nothing at once:\n%s", m.View())
	}
	m.Update(cmd())
	h.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 })
	v := m.View()
	for _, want := range []string{"log in to web in your browser", as.AS.URL + "/authorize?", "logged in to web"} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
	h.command("/servers")
	if v := m.View(); !strings.Contains(v, "login: logged in as client dcr-") || !strings.Contains(v, "token until") {
		t.Errorf("/servers does not say who is logged in until when:\n%s", v)
	}
	h.command("/logout web")
	h.until(func() bool { return strings.Contains(m.View(), "logged out of web") })

	// The sentinels: every token the server issued.
	if len(as.Tokens) == 0 {
		t.Fatal("no token was issued")
	}
	logs, _ := filepath.Glob(filepath.Join(logDir, "*.jsonl"))
	var disk strings.Builder
	for _, p := range logs {
		b, _ := os.ReadFile(p)
		disk.Write(b)
	}
	for _, e := range drainEvents(sub) {
		b, _ := session.Marshal(e)
		wire.Write(b)
	}
	for _, tok := range as.Tokens {
		for where, text := range map[string]string{"screen": m.View(), "session log": disk.String(), "--json": wire.String()} {
			if strings.Contains(text, tok) {
				t.Errorf("a token is on the %s", where)
			}
		}
	}
	if disk.Len() == 0 {
		t.Error("the session log is empty: nothing was checked")
	}
}

// drainEvents takes the events already waiting.
func drainEvents(sub *session.Sub) []session.Event {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var out []session.Event
	for {
		evs, ok := sub.Next(ctx)
		if !ok {
			return out
		}
		out = append(out, evs...)
	}
}
