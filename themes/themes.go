// Package themes owns every colour latch shows. A Palette names semantic
// colours; Build turns one into the Styles struct the UI renders with. No
// colour literal lives outside this package.
package themes

import (
	"fmt"
	"sort"
	"strings"
)

// Palette is a theme's semantic colours. Each value is anything lipgloss
// accepts as a colour: "#rrggbb", or an ANSI index such as "12".
type Palette struct {
	Name      string
	Dark      bool   // drawn for a dark terminal background
	Glamour   string // the glamour style for markdown: "dark", "light", "notty", ...
	Text      string // ordinary text
	Muted     string // secondary text: hints, timestamps
	Subtle    string // thinking, separators
	Accent    string // the brand colour: prompts, headings
	User      string // the user's messages
	Assistant string // the assistant's label
	Error     string
	Warning   string
	Success   string
	StatusFg  string
	StatusBg  string
	Border    string
}

var builtin = map[string]Palette{
	"dark": {
		Name: "dark", Dark: true, Glamour: "dark",
		Text: "#d0d0d0", Muted: "#8a8a8a", Subtle: "#6c6c6c", Accent: "#5fafff",
		User: "#87d787", Assistant: "#5fafff", Error: "#ff5f5f", Warning: "#ffaf5f",
		Success: "#87d787", StatusFg: "#e4e4e4", StatusBg: "#303030", Border: "#4e4e4e",
	},
	"light": {
		Name: "light", Dark: false, Glamour: "light",
		Text: "#303030", Muted: "#6c6c6c", Subtle: "#8a8a8a", Accent: "#005fd7",
		User: "#008700", Assistant: "#005fd7", Error: "#d70000", Warning: "#af5f00",
		Success: "#008700", StatusFg: "#262626", StatusBg: "#dadada", Border: "#bcbcbc",
	},
}

// Names lists the built-in themes, "auto" included, sorted.
func Names() []string {
	names := []string{"auto"}
	for n := range builtin {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the palette called name. "auto" (or "") picks dark or light
// by darkBackground, which the caller detects before the program starts.
func Lookup(name string, darkBackground bool) (Palette, error) {
	switch strings.ToLower(name) {
	case "", "auto":
		if darkBackground {
			return builtin["dark"], nil
		}
		return builtin["light"], nil
	}
	p, ok := builtin[strings.ToLower(name)]
	if !ok {
		return Palette{}, fmt.Errorf("unknown theme %q (themes: %s)", name, strings.Join(Names(), ", "))
	}
	return p, nil
}

// Default is the dark theme, used where no choice was made.
func Default() Styles { return Build(builtin["dark"]) }
