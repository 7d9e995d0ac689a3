package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"latch/themes"
)

// ? on screens 80, 120 and 160 columns wide: the overview uses the
// screen's width (not 100 columns at most), and no line is cut: every
// key's and command's description is there whole, wrapped under itself
// where it is long.
func TestGoldenHelpUsesTheWidth(t *testing.T) {
	for _, w := range []int{80, 120, 160} {
		t.Run(fmt.Sprintf("help_%dx60", w), func(t *testing.T) {
			s := screenModel(t, w, 60, themes.Default())
			s.typeText("?")
			if !s.m.helpOpen {
				t.Fatalf("? did not open the overview:\n%s", s.m.View())
			}
			for range 20 { // page through it: no row cut
				for _, row := range helpBoxText(s.m.View()) {
					if strings.HasSuffix(row, "…") {
						t.Errorf("a row of the overview is cut: %q", row)
					}
				}
				if s.m.helpScroll+s.m.helpRows() >= len(s.m.helpLines()) {
					break
				}
				s.key(tea.KeyPgDown)
			}
			var rows []string
			for _, l := range s.m.helpLines() {
				rows = append(rows, ansi.Strip(l))
			}
			text := strings.Join(strings.Fields(strings.Join(rows, " ")), " ")
			for _, c := range commands {
				if want := strings.Join(strings.Fields(c.help), " "); !strings.Contains(text, want) {
					t.Errorf("%s's help is not whole: %q", c.name, want)
				}
			}
			for _, group := range s.m.keys.FullHelp() {
				for _, k := range group {
					if want := strings.Join(strings.Fields(k.Help().Desc), " "); !strings.Contains(text, want) {
						t.Errorf("%s's help is not whole: %q", k.Help().Key, want)
					}
				}
			}
			if widest := maxWidth(s.m.View()); w > 104 && widest < w-8 {
				t.Errorf("the overview is %d columns on a %d-column screen", widest, w)
			}
			s.m.helpScroll = 0
			goldenScreen(t, s.m, w, 60)
		})
	}
}

// helpBoxText is the overview's rows in a screen, without the box's
// borders.
func helpBoxText(v string) []string {
	var rows []string
	for _, l := range strings.Split(ansi.Strip(v), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "│") && strings.HasSuffix(l, "│") {
			rows = append(rows, strings.Trim(l, "│ "))
		}
	}
	return rows
}

// maxWidth is the width of the widest row of the overview's box.
func maxWidth(v string) int {
	n := 0
	for _, l := range strings.Split(ansi.Strip(v), "\n") {
		if strings.Contains(l, "│") {
			n = max(n, ansi.StringWidth(strings.TrimSpace(l)))
		}
	}
	return n
}
