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
		Waiting  lipgloss.Style // a box that waits while the person types: it does not have the keys
		Title    lipgloss.Style
		Selected lipgloss.Style
		Item     lipgloss.Style
		Hint     lipgloss.Style
	}
	Menu struct { // the completion menu above the input
		Box      lipgloss.Style
		Item     lipgloss.Style // a candidate
		Help     lipgloss.Style // its description
		Selected lipgloss.Style // the selected candidate's whole row
		Hint     lipgloss.Style // "… 3 more", the keys
	}
}

// Build derives the Styles from a palette. It is the one place a palette
// becomes styles. A Mono palette gets no colour at all (see buildMono); a
// Bold one adds bold to the emphasised roles.
func Build(p Palette) Styles { return BuildFor(p, lipgloss.DefaultRenderer()) }

// BuildFor is Build for the terminal r renders for (its colour profile):
// a screen shown on another terminal than latch's own (the inbox over
// SSH) gets its own renderer.
func BuildFor(p Palette, r *lipgloss.Renderer) Styles {
	if p.Mono {
		return buildMono(p, r)
	}
	c := func(s string) lipgloss.Color { return lipgloss.Color(s) }
	var s Styles
	s.Palette = p

	s.Status.Bar = r.NewStyle().Foreground(c(p.StatusFg)).Background(c(p.StatusBg))
	s.Status.Brand = r.NewStyle().Foreground(c(p.Accent)).Background(c(p.StatusBg)).Bold(true)
	s.Status.Item = r.NewStyle().Foreground(c(p.StatusFg)).Background(c(p.StatusBg))
	s.Status.Busy = r.NewStyle().Foreground(c(p.Warning)).Background(c(p.StatusBg)).Bold(p.Bold)
	s.Status.Failure = r.NewStyle().Foreground(c(p.Error)).Background(c(p.StatusBg)).Bold(true)

	s.Chat.User = r.NewStyle().Foreground(c(p.Text))
	s.Chat.UserMark = r.NewStyle().Foreground(c(p.User)).Bold(true)
	s.Chat.Assistant = r.NewStyle().Foreground(c(p.Text))
	s.Chat.Thinking = r.NewStyle().Foreground(c(p.Subtle)).Italic(true)
	s.Chat.Notice = r.NewStyle().Foreground(c(p.Muted))
	s.Chat.Error = r.NewStyle().Foreground(c(p.Error)).Bold(p.Bold)
	s.Chat.Footer = r.NewStyle().Foreground(c(p.Muted)).Italic(true)

	s.Input.Prompt = r.NewStyle().Foreground(c(p.Accent)).Bold(true)
	s.Input.Text = r.NewStyle().Foreground(c(p.Text))
	s.Input.Placeholder = r.NewStyle().Foreground(c(p.Subtle))
	s.Input.Separator = r.NewStyle().Foreground(c(p.Border))

	s.Dialog.Box = r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c(p.Accent)).Padding(0, 1)
	s.Dialog.Waiting = r.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(c(p.Muted)).Padding(0, 1)
	s.Dialog.Title = r.NewStyle().Foreground(c(p.Accent)).Bold(true)
	s.Dialog.Selected = r.NewStyle().Foreground(c(p.Accent)).Bold(true).Underline(p.Bold)
	s.Dialog.Item = r.NewStyle().Foreground(c(p.Text))
	s.Dialog.Hint = r.NewStyle().Foreground(c(p.Muted))

	s.Menu.Box = r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(c(p.Border)).Padding(0, 1)
	s.Menu.Item = r.NewStyle().Foreground(c(p.Text))
	s.Menu.Help = r.NewStyle().Foreground(c(p.Muted))
	s.Menu.Selected = r.NewStyle().Foreground(c(p.Accent)).Reverse(true).Bold(p.Bold)
	s.Menu.Hint = r.NewStyle().Foreground(c(p.Subtle)).Italic(true)
	return s
}

// buildMono is Build for the monochrome theme. No style gets a colour;
// roles and states are told apart by attributes (the UI adds the symbols:
// "›" before the user's text, "✗" on errors, "┊" on thinking):
//
//   - the status line is reversed; busy is reversed italic, a failure
//     reversed bold underlined;
//   - the user's text is bold, the assistant's plain, thinking faint italic,
//     notices italic, footers faint, errors bold underlined;
//   - the selection in a dialog is reversed bold, hints faint; a dialog
//     that waits while the person types has square corners;
//   - in the completion menu the selected row is reversed bold,
//     descriptions faint, its hints faint italic.
func buildMono(p Palette, r *lipgloss.Renderer) Styles {
	n := r.NewStyle
	var s Styles
	s.Palette = p

	s.Status.Bar = n().Reverse(true)
	s.Status.Brand = n().Reverse(true).Bold(true)
	s.Status.Item = n().Reverse(true)
	s.Status.Busy = n().Reverse(true).Italic(true)
	s.Status.Failure = n().Reverse(true).Bold(true).Underline(true)

	s.Chat.User = n().Bold(true)
	s.Chat.UserMark = n().Bold(true)
	s.Chat.Assistant = n()
	s.Chat.Thinking = n().Faint(true).Italic(true)
	s.Chat.Notice = n().Italic(true)
	s.Chat.Error = n().Bold(true).Underline(true)
	s.Chat.Footer = n().Faint(true)

	s.Input.Prompt = n().Bold(true)
	s.Input.Text = n()
	s.Input.Placeholder = n().Faint(true)
	s.Input.Separator = n().Faint(true)

	s.Dialog.Box = n().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	s.Dialog.Waiting = n().Border(lipgloss.NormalBorder()).Padding(0, 1)
	s.Dialog.Title = n().Bold(true).Underline(true)
	s.Dialog.Selected = n().Reverse(true).Bold(true)
	s.Dialog.Item = n()
	s.Dialog.Hint = n().Faint(true)

	s.Menu.Box = n().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	s.Menu.Item = n()
	s.Menu.Help = n().Faint(true)
	s.Menu.Selected = n().Reverse(true).Bold(true)
	s.Menu.Hint = n().Faint(true).Italic(true)
	return s
}
