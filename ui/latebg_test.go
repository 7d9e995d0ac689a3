package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestLateBackgroundAnswer: the terminal's answer about its background
// that comes after the screen opened with a guess resolves the theme the
// chat started with again, once, and the chat is drawn again in it; not
// when that theme does not depend on the background, and not after the
// person chose one with /theme.
func TestLateBackgroundAnswer(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() {
		lipgloss.SetColorProfile(termenv.Ascii)
		lipgloss.SetHasDarkBackground(true)
	})
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(srv.Close)
	sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
	start := func(theme string) *Model {
		pal, _, err := themes.FromEnv(theme, true, func(string) string { return "" }, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		m := New(Options{Backend: sess, Styles: themes.Build(pal), DarkBackground: true, Theme: theme,
			Getenv: func(string) string { return "" }, ConfigHome: t.TempDir(), Profile: termenv.ANSI256})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		m.Update(eventsMsg{events: []session.Event{&session.AssistantMessage{Turn: 1, Content: "Some **words** and `code`."}}})
		return m
	}
	for _, c := range []struct {
		theme, command string
		late           []bool
		want           string
	}{
		{"auto", "", []bool{false}, "light"},
		{"auto", "", []bool{false, true}, "light"}, // once
		{"auto", "", []bool{true}, "dark"},         // the guess was right
		{"high-contrast", "", []bool{false}, "high-contrast"},
		{"dark", "", []bool{false}, "dark"},
		{"nord", "", []bool{false}, "nord"},
		{"", "", []bool{false}, "dark"},
		{"auto", "/theme nord", []bool{false}, "nord"},
	} {
		m := start(c.theme)
		if c.command != "" {
			m.runCommand(c.command)
		}
		before, bg := m.View(), *m.st
		for _, dark := range c.late {
			m.Update(BackgroundMsg(dark))
		}
		after := m.View()
		if got := m.st.Palette.Name; got != c.want {
			t.Errorf("theme %q, %q, late answers %v: the theme is %q, want %q", c.theme, c.command, c.late, got, c.want)
			continue
		}
		changed := m.st.Palette != bg.Palette
		if changed && before == after {
			t.Errorf("theme %q, late answers %v: the theme changed but the screen was not drawn again", c.theme, c.late)
		}
		if c.theme == "high-contrast" && m.st.Palette.Dark {
			t.Errorf("high-contrast after a light background's answer is the dark variant")
		}
	}
}
