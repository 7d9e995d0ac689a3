package themes

// builtin holds the fixed built-in palettes by name. "auto",
// "high-contrast" and "mono" are resolved by Lookup, since they depend on
// the terminal's background.
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
	// Nord (nordtheme.com): Snow Storm text on Polar Night, Frost accents.
	"nord": {
		Name: "nord", Dark: true, Glamour: "dark",
		Text: "#d8dee9", Muted: "#81a1c1", Subtle: "#616e88", Accent: "#88c0d0",
		User: "#a3be8c", Assistant: "#88c0d0", Error: "#bf616a", Warning: "#ebcb8b",
		Success: "#a3be8c", StatusFg: "#eceff4", StatusBg: "#3b4252", Border: "#4c566a",
	},
	// Dracula (draculatheme.com).
	"dracula": {
		Name: "dracula", Dark: true, Glamour: "dracula",
		Text: "#f8f8f2", Muted: "#bd93f9", Subtle: "#6272a4", Accent: "#ff79c6",
		User: "#50fa7b", Assistant: "#8be9fd", Error: "#ff5555", Warning: "#ffb86c",
		Success: "#50fa7b", StatusFg: "#f8f8f2", StatusBg: "#44475a", Border: "#6272a4",
	},
	// Solarized (ethanschoonover.com/solarized), dark: base0 on base03.
	"solarized-dark": {
		Name: "solarized-dark", Dark: true, Glamour: "dark",
		Text: "#839496", Muted: "#93a1a1", Subtle: "#586e75", Accent: "#268bd2",
		User: "#859900", Assistant: "#2aa198", Error: "#dc322f", Warning: "#b58900",
		Success: "#859900", StatusFg: "#93a1a1", StatusBg: "#073642", Border: "#586e75",
	},
	// Solarized, light: base00 on base3.
	"solarized-light": {
		Name: "solarized-light", Dark: false, Glamour: "light",
		Text: "#657b83", Muted: "#586e75", Subtle: "#93a1a1", Accent: "#268bd2",
		User: "#859900", Assistant: "#2aa198", Error: "#dc322f", Warning: "#cb4b16",
		Success: "#859900", StatusFg: "#586e75", StatusBg: "#eee8d5", Border: "#93a1a1",
	},
}

// highContrastDark and highContrastLight are "high-contrast": the 16 ANSI
// colours only (so any terminal can show them, in the user's own scheme),
// bright on black or black on white, emphasis in bold.
var (
	highContrastDark = Palette{
		Name: "high-contrast", Dark: true, Glamour: "dark", Bold: true,
		Text: "15", Muted: "7", Subtle: "7", Accent: "14",
		User: "10", Assistant: "14", Error: "9", Warning: "11",
		Success: "10", StatusFg: "0", StatusBg: "15", Border: "15",
	}
	highContrastLight = Palette{
		Name: "high-contrast", Dark: false, Glamour: "light", Bold: true,
		Text: "0", Muted: "0", Subtle: "8", Accent: "4",
		User: "2", Assistant: "4", Error: "1", Warning: "5",
		Success: "2", StatusFg: "15", StatusBg: "0", Border: "0",
	}
)

// mono is the monochrome theme for NO_COLOR: no colour at all, roles told
// apart by text attributes (see Build). Lookup fills in Dark.
var mono = Palette{Name: "mono", Glamour: "notty", Mono: true}
