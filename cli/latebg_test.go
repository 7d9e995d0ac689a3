package cli

import (
	"testing"

	"latch/themes"
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
		env := chatEnv{pal: pal, dark: true, configHome: t.TempDir(), late: &lateBackground{}}
		for _, d := range c.late {
			env.late.set(d)
		}
		env.takeLateBackground(c.theme, getenv)
		if env.pal.Name != c.want || env.dark != c.dark || env.pal.Dark != c.dark {
			t.Errorf("theme %q, late %v: the fork's theme is %q (dark %v, background dark %v), want %q (%v)",
				c.theme, c.late, env.pal.Name, env.pal.Dark, env.dark, c.want, c.dark)
		}
	}
}
