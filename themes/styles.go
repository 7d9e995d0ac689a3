package themes

import "github.com/charmbracelet/lipgloss"

// Styles is every style the UI draws with, built from one Palette.
type Styles struct {
	Palette Palette

	Status struct {
		Bar     lipgloss.Style // the whole status line
		Brand   lipgloss.Style // "latch"
		Item    lipgloss.Style // model, host, session
		Busy    lipgloss.Style // "streaming…"
		Failure lipgloss.Style // a failure marker
	}
	Chat struct {
		User      lipgloss.Style // the user's message text
		UserMark  lipgloss.Style // the "›" before it
		Assistant lipgloss.Style // plain (not yet rendered) assistant text
		Thinking  lipgloss.Style // a thinking trace
		Notice    lipgloss.Style // replies to slash commands
		Error     lipgloss.Style // one-line errors
		Footer    lipgloss.Style // "cancelled", "cut off" and metrics under a reply
	}
	Input struct {
		Prompt      lipgloss.Style
		Text        lipgloss.Style
		Placeholder lipgloss.Style
		Separator   lipgloss.Style // the rule above the input, with key hints
	}
	Dialog struct {
		Box      lipgloss.Style
		Title    lipgloss.Style
		Selected lipgloss.Style
		Item     lipgloss.Style
		Hint     lipgloss.Style
	}
}

// Build derives the Styles from a palette.
func Build(p Palette) Styles {
	c := func(s string) lipgloss.Color { return lipgloss.Color(s) }
	var s Styles
	s.Palette = p

	s.Status.Bar = lipgloss.NewStyle().Foreground(c(p.StatusFg)).Background(c(p.StatusBg))
	s.Status.Brand = lipgloss.NewStyle().Foreground(c(p.Accent)).Background(c(p.StatusBg)).Bold(true)
	s.Status.Item = lipgloss.NewStyle().Foreground(c(p.StatusFg)).Background(c(p.StatusBg))
	s.Status.Busy = lipgloss.NewStyle().Foreground(c(p.Warning)).Background(c(p.StatusBg))
	s.Status.Failure = lipgloss.NewStyle().Foreground(c(p.Error)).Background(c(p.StatusBg)).Bold(true)

	s.Chat.User = lipgloss.NewStyle().Foreground(c(p.Text))
	s.Chat.UserMark = lipgloss.NewStyle().Foreground(c(p.User)).Bold(true)
	s.Chat.Assistant = lipgloss.NewStyle().Foreground(c(p.Text))
	s.Chat.Thinking = lipgloss.NewStyle().Foreground(c(p.Subtle)).Italic(true)
	s.Chat.Notice = lipgloss.NewStyle().Foreground(c(p.Muted))
	s.Chat.Error = lipgloss.NewStyle().Foreground(c(p.Error))
	s.Chat.Footer = lipgloss.NewStyle().Foreground(c(p.Muted)).Italic(true)

	s.Input.Prompt = lipgloss.NewStyle().Foreground(c(p.Accent)).Bold(true)
	s.Input.Text = lipgloss.NewStyle().Foreground(c(p.Text))
	s.Input.Placeholder = lipgloss.NewStyle().Foreground(c(p.Subtle))
	s.Input.Separator = lipgloss.NewStyle().Foreground(c(p.Border))

	s.Dialog.Box = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c(p.Accent)).Padding(0, 1)
	s.Dialog.Title = lipgloss.NewStyle().Foreground(c(p.Accent)).Bold(true)
	s.Dialog.Selected = lipgloss.NewStyle().Foreground(c(p.Accent)).Bold(true)
	s.Dialog.Item = lipgloss.NewStyle().Foreground(c(p.Text))
	s.Dialog.Hint = lipgloss.NewStyle().Foreground(c(p.Muted))
	return s
}
