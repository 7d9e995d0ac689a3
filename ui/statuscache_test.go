package ui

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"latch/themes"
)

// TestStatusAndHintLinesFollowTheTheme: the status and hint lines, drawn
// again only when they change, take a new theme's colours at once, and
// are what drawing them anew gives.
func TestStatusAndHintLinesFollowTheTheme(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	s := screenModel(t, 80, 24, themes.Default())
	s.m.themeEnv.profile = 0 // the theme keeps the colour profile
	s.m.View()
	status, hint := s.m.statusLine(), s.m.hintLine()
	s.command("/theme high-contrast")
	s.m.View()
	if p := lipgloss.ColorProfile(); p != termenv.ANSI256 {
		t.Fatalf("the theme changed the colour profile to %v", p)
	}
	if got, want := s.m.statusLine(), s.m.drawStatus(s.m.statusInputs()); got != want || got == status {
		t.Errorf("status line after /theme:\n got %q\nwant %q\n(before %q)", got, want, status)
	}
	if got, want := s.m.hintLine(), s.m.st.Input.Separator.Render(ansi.Strip(hint)); got != want || got == hint {
		t.Errorf("hint line after /theme:\n got %q\nwant %q\n(before %q)", got, want, hint)
	}
}
