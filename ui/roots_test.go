package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/themes"
)

// rootsFake is the Servers part with roots and log levels.
type rootsFake struct {
	serversOnly
	roots  []string
	levels []string
}

func (f *rootsFake) Roots() []string { return f.roots }
func (f *rootsFake) AddRoot(dir string) (string, int, error) {
	f.roots = append(f.roots, "/abs/"+dir)
	return "/abs/" + dir, 2, nil
}
func (f *rootsFake) RemoveRoot(dir string) (string, int, error) { return dir, 0, nil }
func (f *rootsFake) SetLogLevel(name, level string) error {
	f.levels = append(f.levels, name+" "+level)
	return nil
}

func TestRootsAndLogLevelCommands(t *testing.T) {
	m := New(Options{Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	f := &rootsFake{serversOnly: serversOnly{statuses: []session.ServerStatus{
		{Name: "notes", Transport: "stdio", State: session.StateConnected, Offers: []string{"tools", "logging"}, Answers: []string{"roots"}},
		{Name: "old", Transport: "sse", State: session.StateConnected, Offers: []string{"tools"}, NotOffered: []string{"roots"}},
		{Name: "new", Transport: "http", ProtocolVersion: "2026-07-28", State: session.StateConnected, Offers: []string{"logging"}},
	}}, roots: []string{"/home/me/my project"}}
	m.srv = f
	last := func() string { return m.chat.entries[len(m.chat.entries)-1].text }
	run := func(line string) {
		if cmd := m.runCommand(line); cmd != nil {
			m.Update(cmd())
		}
	}
	run("/roots")
	if !strings.Contains(last(), "/home/me/my project  file:///home/me/my%20project") {
		t.Errorf("/roots: %q", last())
	}
	run("/roots add src")
	if !strings.Contains(last(), "root added: /abs/src (2 connected servers told)") {
		t.Errorf("/roots add: %q", last())
	}
	run("/roots")
	if !strings.Contains(last(), "/abs/src") {
		t.Errorf("/roots after add: %q", last())
	}
	run("/roots add")
	if !strings.Contains(last(), "usage: /roots [add|remove DIR]") {
		t.Errorf("/roots add without a dir: %q", last())
	}
	run("/logs notes debug")
	if len(f.levels) != 1 || f.levels[0] != "notes debug" || !strings.Contains(last(), "log level set to debug, logging/setLevel") {
		t.Errorf("/logs notes debug: %v %q", f.levels, last())
	}
	run("/logs new info")
	if len(f.levels) != 2 || !strings.Contains(last(), "log level set to info, in each request's _meta: protocol 2026-07-28 has no logging/setLevel") {
		t.Errorf("/logs new info: %v %q", f.levels, last())
	}
	run("/logs notes loud")
	if !strings.Contains(last(), `unknown level "loud"`) || len(f.levels) != 2 {
		t.Errorf("/logs notes loud: %q", last())
	}
	run("/servers")
	for _, want := range []string{"offers: tools, logging", "latch answers: roots",
		"not offered on legacy SSE (it cannot carry a server's requests): roots"} {
		if !strings.Contains(last(), want) || strings.Count(last(), want) != 1 {
			t.Errorf("/servers: %q, want %q once", last(), want)
		}
	}
	if got := m.candidates("/logs notes d"); len(got) != 1 || got[0].text != "/logs notes debug" {
		t.Errorf("completion of /logs notes d: %v", got)
	}
	if got := m.candidates("/roots a"); len(got) != 1 || got[0].text != "/roots add" {
		t.Errorf("completion of /roots a: %v", got)
	}
}
