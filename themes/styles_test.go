package themes

import (
	"io"
	"reflect"
	"regexp"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// eachStyle calls fn with the path and value of every lipgloss.Style in s,
// walking the nested groups, so a field added later is covered too.
func eachStyle(s Styles, fn func(path string, st lipgloss.Style)) {
	styleType := reflect.TypeFor[lipgloss.Style]()
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			f, fv := v.Type().Field(i), v.Field(i)
			switch {
			case f.Type == styleType:
				fn(prefix+f.Name, fv.Interface().(lipgloss.Style))
			case f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[Palette]():
				walk(prefix+f.Name+".", fv)
			}
		}
	}
	walk("", reflect.ValueOf(s))
}

func TestMonoHasNoColour(t *testing.T) {
	t.Parallel()
	p, err := Lookup("mono", true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Glamour != "notty" && p.Glamour != "ascii" {
		t.Errorf("mono glamour style = %q; want notty or ascii", p.Glamour)
	}
	// Render with a truecolor renderer: any colour set would show up as an
	// SGR 38/48 (or 3x/4x/9x/10x) parameter.
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	colourSGR := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])[;m]`)
	dark, _ := Lookup("dark", true)
	if out := Build(dark).Chat.Error.Renderer(r).Render("x"); !colourSGR.MatchString(out) {
		t.Fatalf("the colour check misses a coloured style: %q", out)
	}
	n := 0
	eachStyle(Build(p), func(path string, st lipgloss.Style) {
		n++
		noColour := lipgloss.NoColor{}
		for what, c := range map[string]lipgloss.TerminalColor{
			"foreground": st.GetForeground(), "background": st.GetBackground(),
			"border top": st.GetBorderTopForeground(), "border right": st.GetBorderRightForeground(),
			"border bottom": st.GetBorderBottomForeground(), "border left": st.GetBorderLeftForeground(),
			"border top bg": st.GetBorderTopBackground(), "border right bg": st.GetBorderRightBackground(),
			"border bottom bg": st.GetBorderBottomBackground(), "border left bg": st.GetBorderLeftBackground(),
		} {
			if c != noColour {
				t.Errorf("mono %s has %s %v", path, what, c)
			}
		}
		if out := st.Renderer(r).Render("x"); colourSGR.MatchString(out) {
			t.Errorf("mono %s renders colour: %q", path, out)
		}
	})
	if n < 20 {
		t.Errorf("walked %d styles; the walk missed the groups", n)
	}
}

// attrs is the text attributes of a style, what mono tells roles apart by.
type attrs struct{ bold, italic, faint, underline, reverse bool }

func attrsOf(s lipgloss.Style) attrs {
	return attrs{s.GetBold(), s.GetItalic(), s.GetFaint(), s.GetUnderline(), s.GetReverse()}
}

func TestMonoMarksRolesWithAttributes(t *testing.T) {
	t.Parallel()
	p, _ := Lookup("no-color", false)
	s := Build(p)
	groups := map[string]map[string]lipgloss.Style{
		"chat": {
			"user": s.Chat.User, "assistant": s.Chat.Assistant, "thinking": s.Chat.Thinking,
			"notice": s.Chat.Notice, "error": s.Chat.Error, "footer": s.Chat.Footer,
		},
		"status": {"item": s.Status.Item, "brand": s.Status.Brand, "busy": s.Status.Busy, "failure": s.Status.Failure},
		"dialog": {"item": s.Dialog.Item, "selected": s.Dialog.Selected, "hint": s.Dialog.Hint},
		"menu":   {"item": s.Menu.Item, "help": s.Menu.Help, "selected": s.Menu.Selected, "hint": s.Menu.Hint},
		"input":  {"prompt": s.Input.Prompt, "text": s.Input.Text, "placeholder": s.Input.Placeholder},
	}
	for group, roles := range groups {
		seen := map[attrs]string{}
		for role, st := range roles {
			a := attrsOf(st)
			if other, dup := seen[a]; dup {
				t.Errorf("mono %s: %s and %s look the same (%+v)", group, role, other, a)
			}
			seen[a] = role
		}
	}
	if !s.Status.Bar.GetReverse() {
		t.Error("mono status bar should be reversed to stand apart from the chat")
	}
	// Busy keeps its mark when a card drops the status background.
	if attrsOf(s.Status.Busy.UnsetBackground()) == attrsOf(s.Chat.Notice) {
		t.Error("mono busy card heads look like notices")
	}
}

func TestColouredThemesSetColours(t *testing.T) {
	t.Parallel()
	for label, p := range allBuiltins(t) {
		if p.Mono {
			continue
		}
		s := Build(p)
		if s.Chat.Error.GetForeground() != lipgloss.Color(p.Error) || s.Status.Bar.GetBackground() != lipgloss.Color(p.StatusBg) {
			t.Errorf("%s: Build did not use the palette's colours", label)
		}
	}
}

func TestRenderProfile(t *testing.T) {
	t.Parallel()
	mono, _ := Lookup("mono", true)
	dark, _ := Lookup("dark", true)
	tests := []struct {
		name     string
		p        Palette
		detected termenv.Profile
		want     termenv.Profile
	}{
		{"mono under NO_COLOR keeps attributes", mono, termenv.Ascii, termenv.ANSI},
		{"mono on a colour terminal", mono, termenv.TrueColor, termenv.TrueColor},
		{"a coloured theme stays ascii", dark, termenv.Ascii, termenv.Ascii},
		{"a coloured theme", dark, termenv.ANSI256, termenv.ANSI256},
	}
	for _, tc := range tests {
		if got := RenderProfile(tc.p, tc.detected); got != tc.want {
			t.Errorf("%s: RenderProfile = %v; want %v", tc.name, got, tc.want)
		}
	}
}
