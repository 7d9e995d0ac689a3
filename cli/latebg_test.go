package cli

import (
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/themes"
	"latch/ui"
)

// TestLateBackgroundForTheFork: the terminal's answer about its background
// that came late in a chat decides the theme of the chat after /fork, when
// the theme depends on the background.
func TestLateBackgroundForTheFork(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, c := range []struct {
		theme string
		late  []bool // the answers told, none when empty
		want  string
		dark  bool
	}{
		{"auto", nil, "dark", true},
		{"auto", []bool{false}, "light", false},
		{"auto", []bool{true}, "dark", true},
		{"high-contrast", []bool{false}, "high-contrast", false},
	} {
		pal, _, err := themes.FromEnv(c.theme, true, getenv, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		env := chatEnv{pal: pal, dark: true, configHome: t.TempDir(), late: &lateAnswers{}}
		for _, d := range c.late {
			env.late.setBackground(d)
		}
		env.takeLateAnswers(c.theme, getenv)
		if env.pal.Name != c.want || env.dark != c.dark || env.pal.Dark != c.dark {
			t.Errorf("theme %q, late %v: the fork's theme is %q (dark %v, background dark %v), want %q (%v)",
				c.theme, c.late, env.pal.Name, env.pal.Dark, env.dark, c.want, c.dark)
		}
	}
}

// TestLateSyncAnswerForTheFork: the terminal's answer about synchronized
// output that came late in a chat, read with its keys, holds in the chat
// after /fork: the fork draws its frames bracketed from the start, and the
// chat that read it was told at once.
func TestLateSyncAnswerForTheFork(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, c := range []struct {
		answer string // what the terminal sent among the keys
		want   bool
	}{
		{"", false},
		{"\x1b[?2026;2$y", true},
		{"\x1b[?2026;1$y\x1b[?62;22c", true},
		{"\x1b[?2026;0$y", false},
	} {
		pal, _, err := themes.FromEnv("dark", true, getenv, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		env := chatEnv{pal: pal, dark: true, late: &lateAnswers{}}
		var sent []tea.Msg
		in := ui.TeaInputAfter(strings.NewReader("ab"+c.answer+"c"), nil, env.lateTold(func(m tea.Msg) { sent = append(sent, m) }))
		keys, err := io.ReadAll(in)
		if err != nil {
			t.Fatal(err)
		}
		if string(keys) != "abc" {
			t.Errorf("answer %q: the keys read are %q, want \"abc\"", c.answer, keys)
		}
		if c.answer != "" && (len(sent) != 1 || sent[0] != ui.SyncOutputMsg(c.want)) {
			t.Errorf("answer %q: the chat was sent %v, want [%v]", c.answer, sent, c.want)
		}
		env.takeLateAnswers("dark", getenv)
		if env.syncOutput != c.want {
			t.Errorf("answer %q: the fork's synchronized output is %v, want %v", c.answer, env.syncOutput, c.want)
		}
	}
}
