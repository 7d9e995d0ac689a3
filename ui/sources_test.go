package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestServersShowsSources: /servers says which files the servers were
// read from (the person's config, a project file and whether its servers
// are on), each on its own line; a path that holds an escape sequence
// shows it as text.
func TestServersShowsSources(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261202-120000-abcdef", Servers: []session.ServerConfig{{Name: "db", Command: "db-mcp", Disabled: true}}})
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sess.Subscribe(), Styles: themes.Default(), FrameInterval: -1,
		Sources: []string{"config /home/me/.config/latch/config.json",
			"project /work/app\x1b]0;pwned\x07/.mcp.json: servers \"db\" off until `latch project enable`"}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	h := &harness{t: t, srv: ol, sess: sess, m: m}
	h.command("/servers")
	v := allText(m)
	for _, want := range []string{"read from: config /home/me/.config/latch/config.json",
		"project /work/app␛]0;pwned␇/.mcp.json: servers \"db\" off until `latch project enable`"} {
		if !strings.Contains(v, want) {
			t.Errorf("/servers lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\x1b]0;") {
		t.Error("an escape sequence in a path reached the screen")
	}
}
