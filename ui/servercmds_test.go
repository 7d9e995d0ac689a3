package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// TestConnectSaysConnectingAtOnce: /connect NAME shows that it is
// connecting before the connection is up.
func TestConnectSaysConnectingAtOnce(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.b.servers = []session.ServerStatus{{Name: "web", Transport: "http"}, {Name: "fs", Transport: "stdio"}}
	fh.m.input.set("/connect web")
	_, cmd := fh.m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("/connect started nothing")
	}
	if !strings.Contains(fh.m.View(), "connecting web…") {
		t.Fatalf("nothing says the server is connecting:\n%s", fh.m.View())
	}
	fh.m.input.set("/connect all")
	fh.m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if !strings.Contains(fh.m.View(), "connecting every server…") {
		t.Fatalf("/connect all:\n%s", fh.m.View())
	}
}

// TestTokenRefusedForStdio: a stdio server takes no token; /token says so
// before asking for one.
func TestTokenRefusedForStdio(t *testing.T) {
	fh := newFakeHarness(t, 120, 30)
	fh.b.servers = []session.ServerStatus{{Name: "web", Transport: "http"}, {Name: "fs", Transport: "stdio"}}
	fh.m.input.set("/token fs")
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
	if fh.m.token != nil {
		t.Fatalf("a token prompt opened for a stdio server:\n%s", fh.m.View())
	}
	if v := fh.m.View(); !strings.Contains(v, "/token: fs is a stdio server") || !strings.Contains(v, "env") {
		t.Fatalf("no clear refusal:\n%s", v)
	}
	fh.m.input.set("/token web")
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
	if fh.m.token == nil {
		t.Fatalf("no token prompt for an http server:\n%s", fh.m.View())
	}
}
