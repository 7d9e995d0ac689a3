// Package themes owns every colour latch shows. A Palette names semantic
// colours; Build turns one into the Styles struct the UI renders with. No
// colour literal lives outside this package.
//
// Themes come from three places, tried in this order by FromEnv:
//
//   - NO_COLOR: when the variable is set to anything, the monochrome theme
//     "mono" is used whatever theme was asked for (https://no-color.org).
//   - The built-ins: "auto", "dark", "light", "high-contrast", "mono" (alias
//     "no-color"), "nord", "dracula", "solarized-dark" and "solarized-light".
//   - User themes: $XDG_CONFIG_HOME/latch/themes/NAME.json (see LoadFile).
//     A built-in name always means the built-in.
package themes

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"latch/words"
)

// Palette is a theme's semantic colours. Each colour value is anything
// lipgloss accepts: "#rrggbb", "#rgb", or an ANSI index such as "12". The
// token tag is the key a user theme file uses for the field.
type Palette struct {
	Name      string // the theme's name; a user theme's is its file name
	Dark      bool   `token:"dark"`      // drawn for a dark terminal background
	Glamour   string `token:"glamour"`   // the glamour style for markdown: "dark", "light", "notty", ...
	Text      string `token:"text"`      // ordinary text
	Muted     string `token:"muted"`     // secondary text: hints, timestamps
	Subtle    string `token:"subtle"`    // thinking, separators
	Accent    string `token:"accent"`    // the brand colour: prompts, headings
	User      string `token:"user"`      // the user's messages
	Assistant string `token:"assistant"` // the assistant's label
	Error     string `token:"error"`     // errors, failures, denied calls
	Warning   string `token:"warning"`   // busy states: streaming, waiting for approval
	Success   string `token:"success"`   // finished work
	StatusFg  string `token:"status_fg"` // the status line's text
	StatusBg  string `token:"status_bg"` // the status line's background
	Border    string `token:"border"`    // rules and borders

	// Bold adds bold (and underline on the selection) to emphasised roles
	// such as errors and busy states, so they stand out by more than hue.
	// high-contrast sets it.
	Bold bool `token:"bold"`
	// Mono marks the monochrome theme: Build sets no colour at all and
	// tells roles apart by bold, italic, faint, underline and reverse
	// only. The colour fields are empty.
	Mono bool
}

// ErrUnknownTheme is returned (wrapped) for a name that is neither a
// built-in nor a user theme.
var ErrUnknownTheme = errors.New("unknown theme")

// Names lists the built-in themes, "auto" included, sorted. Available adds
// the user's themes.
func Names() []string {
	names := []string{"auto", "high-contrast", "mono"}
	for n := range builtin {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the built-in palette called name, case-insensitively.
// "auto" (or "") picks dark or light by darkBackground, which the caller
// detects before the program starts; "high-contrast" has a dark and a light
// variant picked the same way. "mono" and "no-color" are the monochrome
// theme. User themes are not consulted: use FromEnv for those.
func Lookup(name string, darkBackground bool) (Palette, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	switch key {
	case "", "auto":
		if darkBackground {
			return builtin["dark"], nil
		}
		return builtin["light"], nil
	case "high-contrast":
		if darkBackground {
			return highContrastDark, nil
		}
		return highContrastLight, nil
	case "mono", "no-color":
		p := mono
		p.Dark = darkBackground
		return p, nil
	}
	p, ok := builtin[key]
	if !ok {
		return Palette{}, unknownTheme(name, Names())
	}
	return p, nil
}

// NeedsBackground reports whether resolving name may depend on the
// terminal's background, so the caller knows whether to query it (which
// costs a round trip to the terminal) before the program starts. It is
// true for "auto", "high-contrast" and any name that is not a fixed
// built-in, since a user theme may inherit from "auto".
func NeedsBackground(name string) bool {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == "mono" || key == "no-color" {
		return false
	}
	_, fixed := builtin[key]
	return !fixed
}

// Default is the dark theme, used where no choice was made.
func Default() Styles { return Build(builtin["dark"]) }

// unknownTheme is the error for a name that matches nothing in names.
func unknownTheme(name string, names []string) error {
	msg := fmt.Sprintf("%q", name)
	if s := words.Suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return fmt.Errorf("%w %s (themes: %s)", ErrUnknownTheme, msg, strings.Join(names, ", "))
}

// Usage describes the values --theme takes, for its help: every built-in
// theme, then user themes.
func Usage() string {
	return strings.Join(Names(), ", ") + ", or a user theme NAME (the file NAME.json in $XDG_CONFIG_HOME/latch/themes)"
}
