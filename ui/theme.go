package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"latch/themes"
)

// themeEnv is what /theme needs to resolve a name the way start-up did.
type themeEnv struct {
	dark       bool                // the terminal's background, detected before start
	getenv     func(string) string // for NO_COLOR
	configHome string              // where user themes live
	profile    termenv.Profile     // the colour profile detected at start
	// follow is the theme start-up resolved (Options.Theme) while a late
	// answer about the background may still resolve it again: "" once
	// one came, or once the person chose a theme with /theme.
	follow string
}

// BackgroundMsg is the terminal's answer about its background colour come
// late, after the screen opened with a guess (see LateAnswers): true when
// it is dark. The first one resolves the theme the chat started with again
// (Options.Theme), when that theme depends on the background ("auto",
// "high-contrast", a user theme) and the person has not chosen another
// with /theme; the chat is drawn again in it. A theme named on the command
// line or in the config that does not depend on the background (the
// terminal is not even asked) stays.
type BackgroundMsg bool

// lateBackground takes the terminal's late answer about its background.
func (m *Model) lateBackground(dark bool) {
	name := m.themeEnv.follow
	m.themeEnv.follow = ""
	if dark == m.themeEnv.dark {
		return // the guess was right
	}
	// /theme resolves names against the real background from now on.
	m.themeEnv.dark = dark
	lipgloss.SetHasDarkBackground(dark)
	if name == "" || !themes.NeedsBackground(name) {
		return
	}
	pal, _, err := themes.FromEnv(name, dark, m.themeEnv.getenv, m.themeEnv.configHome)
	if err != nil {
		return // start-up said why already
	}
	m.applyTheme(pal)
}

// themeNames lists the themes /theme can switch to.
func (m *Model) themeNames() []string { return themes.Available(m.themeEnv.configHome) }

// cmdTheme lists the themes, or switches to one live.
func (m *Model) cmdTheme(args []string) tea.Cmd {
	switch len(args) {
	case 0:
		var b strings.Builder
		b.WriteString("themes:")
		for _, n := range m.themeNames() {
			mark := "  "
			if n == m.st.Palette.Name {
				mark = "* "
			}
			b.WriteString("\n  " + mark + n)
		}
		if dir := themes.Dir(m.themeEnv.configHome); dir != "" {
			fmt.Fprintf(&b, "\nuser themes: %s/NAME.json (palette tokens; see docs/USING.md, Themes)", dir)
		}
		m.addNotice(b.String())
	case 1:
		pal, warns, err := themes.FromEnv(args[0], m.themeEnv.dark, m.themeEnv.getenv, m.themeEnv.configHome)
		if err != nil {
			m.addError("/theme: " + sanitizeText(err.Error()))
			return nil
		}
		m.applyTheme(pal)
		m.themeEnv.follow = "" // chosen: a late answer changes it no more
		for _, w := range warns {
			m.addNotice(w)
		}
		m.addNotice("theme: " + pal.Name)
	default:
		m.badArgs("theme")
	}
	return nil
}

// applyTheme switches every style live: the chat, the markdown, the input.
func (m *Model) applyTheme(p themes.Palette) {
	if m.themeEnv.profile != 0 || p.Mono {
		lipgloss.SetColorProfile(themes.RenderProfile(p, m.themeEnv.profile))
	}
	*m.st = themes.Build(p)
	m.status, m.hint = statusCache{}, hintCache{}
	m.md.setStyle(p.Glamour)
	m.input.restyle(m.st)
	m.chat.relayout()
	m.dirty = true
}
