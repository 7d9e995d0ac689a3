package themes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/muesli/termenv"
)

// FromEnv resolves the theme the user asked for and always returns a
// palette the program can use.
//
// name is the requested theme ("" means "auto"); darkBackground is the
// terminal's background, detected by the caller before the program starts
// (see NeedsBackground); getenv reads the environment (nil means
// os.Getenv); configHome is the XDG config folder (see ConfigHome), where
// Dir finds user themes, or "" for none.
//
// The order is:
//
//  1. NO_COLOR set to anything non-empty gives "mono", whatever name says:
//     NO_COLOR wins, even over a theme chosen by flag, so one variable turns
//     colour off everywhere. When name was another theme a warning says so.
//  2. A built-in theme (see Lookup).
//  3. A user theme, Dir(configHome)/NAME.json (see LoadFile).
//
// When the theme cannot be used (an unknown name, or a user theme file that
// is missing, unreadable or invalid), FromEnv returns the fallback, "auto"
// resolved by darkBackground, together with err saying why; err wraps
// ErrUnknownTheme for a name that matches nothing, or joins *ThemeError
// values for a broken file. A caller that must reject a bad theme (an
// explicit flag) fails on err; one that can go on shows err and uses the
// palette. warnings are notes that need no action to go on.
func FromEnv(name string, darkBackground bool, getenv func(string) string, configHome string) (p Palette, warnings []string, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	name = strings.TrimSpace(name)
	if getenv("NO_COLOR") != "" {
		p, _ = Lookup("mono", darkBackground)
		switch strings.ToLower(name) {
		case "", "auto", "mono", "no-color":
		default:
			warnings = append(warnings, fmt.Sprintf("NO_COLOR is set: using the monochrome theme instead of %q", name))
		}
		return p, warnings, nil
	}
	if p, err := Lookup(name, darkBackground); err == nil {
		if path := findUser(name, configHome); path != "" && isAlias(name) {
			warnings = append(warnings, fmt.Sprintf("theme %s is not used: %q is the built-in theme", path, name))
		}
		return p, warnings, nil
	}
	fallback, _ := Lookup("auto", darkBackground)
	path := findUser(name, configHome)
	if path == "" {
		err = unknownTheme(name, Available(configHome))
		if dir := Dir(configHome); dir != "" {
			err = fmt.Errorf("%w; user theme NAME is the file %s", err, filepath.Join(dir, "NAME.json"))
		}
		return fallback, nil, err
	}
	p, err = LoadFile(path, darkBackground)
	if err != nil {
		return fallback, nil, err
	}
	return p, nil, nil
}

// RenderProfile returns the colour profile the interactive program should
// render palette p with, given the profile detected from the terminal and
// environment (lipgloss.ColorProfile()). It is the detected one, except for
// the monochrome theme: under NO_COLOR lipgloss detects termenv.Ascii,
// which drops bold, italic and reverse along with colour, and mono would
// lose the attributes that tell roles apart. Mono sets no colour, so
// lifting it to termenv.ANSI adds attributes only. Call it for a terminal
// only, not when output is piped:
//
//	lipgloss.SetColorProfile(themes.RenderProfile(pal, lipgloss.ColorProfile()))
func RenderProfile(p Palette, detected termenv.Profile) termenv.Profile {
	if p.Mono && detected == termenv.Ascii {
		return termenv.ANSI
	}
	return detected
}
