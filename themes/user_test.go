package themes

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTheme writes a user theme file under a fresh config home and
// returns the config home and the file's path.
func writeTheme(t *testing.T, home, name, body string) string {
	t.Helper()
	dir := Dir(home)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// env is a getenv over a map.
func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnvNoColor(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeTheme(t, home, "broken", `{"txet": 1}`)
	tests := []struct {
		name     string
		theme    string
		noColor  string
		wantMono bool
		warn     string
	}{
		{"NO_COLOR with auto", "auto", "1", true, ""},
		{"NO_COLOR with no theme", "", "yes", true, ""},
		{"NO_COLOR wins over a built-in", "nord", "1", true, `instead of "nord"`},
		{"NO_COLOR wins over a broken user theme", "broken", "1", true, `instead of "broken"`},
		{"NO_COLOR empty is unset", "nord", "", false, ""},
		{"mono by name without NO_COLOR", "mono", "", true, ""},
		{"no-color by name", "no-color", "", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, warns, err := FromEnv(tc.theme, true, env(map[string]string{"NO_COLOR": tc.noColor}), home)
			if err != nil {
				t.Fatalf("FromEnv: %v", err)
			}
			if p.Mono != tc.wantMono {
				t.Errorf("FromEnv(%q) = %q mono=%v; want mono=%v", tc.theme, p.Name, p.Mono, tc.wantMono)
			}
			if tc.warn == "" && len(warns) > 0 || tc.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tc.warn)) {
				t.Errorf("warnings = %q; want one containing %q", warns, tc.warn)
			}
		})
	}
}

func TestFromEnvBuiltins(t *testing.T) {
	t.Parallel()
	for _, dark := range []bool{true, false} {
		p, warns, err := FromEnv("", dark, env(nil), "")
		want, _ := Lookup("auto", dark)
		if err != nil || len(warns) > 0 || p != want {
			t.Errorf("FromEnv(\"\", %v) = %q, %q, %v; want %q", dark, p.Name, warns, err, want.Name)
		}
	}
	p, _, err := FromEnv("Dracula", true, nil, "")
	if err != nil || p.Name != "dracula" || p.Glamour != "dracula" {
		t.Errorf("FromEnv(Dracula) = %+v, %v", p, err)
	}
}

func TestFromEnvUserTheme(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeTheme(t, home, "mine", `{
  "base": "dark",
  "accent": "12",
  "user": "#ABC",
  "status_bg": "#101820",
  "bold": true
}`)
	p, warns, err := FromEnv("mine", false, env(nil), home)
	if err != nil || len(warns) > 0 {
		t.Fatalf("FromEnv(mine) = %v, %q", err, warns)
	}
	want := builtin["dark"]
	want.Name, want.Accent, want.User, want.StatusBg, want.Bold = "mine", "12", "#aabbcc", "#101820", true
	if p != want {
		t.Errorf("mine = %+v\nwant  %+v", p, want)
	}
	if s := Build(p); s.Palette.Name != "mine" || !s.Chat.Error.GetBold() {
		t.Errorf("Build(mine) did not apply the palette")
	}
}

func TestUserThemeInheritance(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	tests := []struct {
		name, body string
		dark       bool // the terminal's background
		check      func(p Palette) string
	}{
		{"no base follows the terminal", `{"accent": "#ff0000"}`, false, func(p Palette) string {
			if p.Dark || p.Text != builtin["light"].Text || p.Glamour != "light" || p.Accent != "#ff0000" {
				return "want light's tokens and glamour"
			}
			return ""
		}},
		{"no base follows the file's dark", `{"dark": true}`, false, func(p Palette) string {
			if !p.Dark || p.Text != builtin["dark"].Text || p.Glamour != "dark" {
				return "want dark's tokens"
			}
			return ""
		}},
		{"base auto follows the terminal", `{"base": "auto"}`, true, func(p Palette) string {
			if !p.Dark || p.Border != builtin["dark"].Border {
				return "want dark's tokens"
			}
			return ""
		}},
		{"base high-contrast on light", `{"base": "high-contrast", "error": "9"}`, false, func(p Palette) string {
			if p.Text != highContrastLight.Text || p.Error != "9" || !p.Bold {
				return "want high-contrast light with error 9"
			}
			return ""
		}},
		{"the file's dark picks the variant", `{"base": "high-contrast", "dark": false}`, true, func(p Palette) string {
			if p != (Palette{Name: p.Name, Dark: false, Glamour: "light", Bold: true, Text: "0", Muted: "0", Subtle: "8",
				Accent: "4", User: "2", Assistant: "4", Error: "1", Warning: "5", Success: "2", StatusFg: "15",
				StatusBg: "0", Border: "0"}) {
				return "want high-contrast's light variant"
			}
			return ""
		}},
		{"dark flipped from the base changes glamour", `{"base": "nord", "dark": false}`, true, func(p Palette) string {
			if p.Dark || p.Glamour != "light" || p.Accent != builtin["nord"].Accent {
				return "want nord's colours, light glamour"
			}
			return ""
		}},
		{"an explicit glamour stays", `{"base": "nord", "dark": false, "glamour": "pink"}`, true, func(p Palette) string {
			if p.Glamour != "pink" {
				return "want pink"
			}
			return ""
		}},
		{"the base's glamour is inherited", `{"base": "dracula", "text": "255"}`, false, func(p Palette) string {
			if p.Glamour != "dracula" || p.Text != "255" {
				return "want dracula glamour"
			}
			return ""
		}},
	}
	for i, tc := range tests {
		name := "t" + string(rune('a'+i))
		writeTheme(t, home, name, tc.body)
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, _, err := FromEnv(name, tc.dark, env(nil), home)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name != name {
				t.Errorf("name = %q; want %q", p.Name, name)
			}
			if msg := tc.check(p); msg != "" {
				t.Errorf("%s; got %+v", msg, p)
			}
		})
	}
}

func TestBrokenUserThemes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		body  string
		token string   // the token the error names, "" for none
		want  []string // substrings of the error
	}{
		{"unknown token", `{"base": "dark", "acent": "#fff"}`, "acent",
			[]string{`unknown token; did you mean "accent"?`, ":1:18:"}},
		{"unknown token far off", `{"sparkles": "#fff"}`, "sparkles", []string{"unknown token (tokens: accent, assistant, base,"}},
		{"camelCase token", `{"statusBg": "#fff"}`, "statusBg", []string{`did you mean "status_bg"?`}},
		{"bad colour", "{\n  \"text\": \"red\"\n}", "text", []string{`"red" is not a colour`, ":2:11:"}},
		{"bad hex", `{"text": "#12345"}`, "text", []string{`"#12345" is not a colour`}},
		{"index too big", `{"text": "256"}`, "text", []string{`"256" is not a colour`}},
		{"negative index", `{"text": "-1"}`, "text", []string{`"-1" is not a colour`}},
		{"empty colour", `{"text": ""}`, "text", []string{`"" is not a colour`}},
		{"number for colour", `{"accent": 12}`, "accent", []string{`want a colour string, got a number (write an ANSI index as a string: "12")`}},
		{"null colour", `{"accent": null}`, "accent", []string{"want a colour string, got null"}},
		{"string for dark", `{"dark": "yes"}`, "dark", []string{"want true or false, got a string"}},
		{"number for bold", `{"bold": 1}`, "bold", []string{"want true or false, got a number"}},
		{"bad glamour", `{"glamour": "drakula"}`, "glamour", []string{`"drakula" is not a glamour style; did you mean "dracula"?`}},
		{"bad base", `{"base": "nrod"}`, "base", []string{`"nrod" is not a built-in theme; did you mean "nord"?`}},
		{"empty base", `{"base": ""}`, "base", []string{`"" is not a built-in theme`}},
		{"colour on a mono base", `{"base": "mono", "accent": "#fff"}`, "accent", []string{"the mono base draws no colour"}},
		{"array base", `{"base": ["dark"]}`, "base", []string{"got an array"}},
		{"duplicate token", `{"text": "1", "text": "2"}`, "text", []string{"duplicate token"}},
		{"bad JSON", "{\n  \"text\": \"#fff\",\n}", "", []string{":3:1: invalid JSON"}},
		{"empty file", "", "", []string{":1:1: invalid JSON"}},
		{"not an object", `["#fff"]`, "", []string{"want a JSON object of tokens, got an array"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			name := "broken" + string(rune('a'+i))
			path := writeTheme(t, home, name, tc.body)
			p, _, err := FromEnv(name, true, env(nil), home)
			if err == nil {
				t.Fatalf("FromEnv(%s) loaded %+v; want an error", tc.body, p)
			}
			if fallback, _ := Lookup("auto", true); p != fallback {
				t.Errorf("fell back to %q; want the auto theme", p.Name)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error %q does not name the file %s", msg, path)
			}
			if tc.token != "" && !strings.Contains(msg, `token "`+tc.token+`"`) {
				t.Errorf("error %q does not name the token %q", msg, tc.token)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			var te *ThemeError
			if !errors.As(err, &te) || te.File != path || te.Token != tc.token {
				t.Errorf("errors.As(*ThemeError) = %+v", te)
			}
		})
	}
}

func TestBrokenUserThemeReportsEveryProblem(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeTheme(t, home, "many", `{"txet": "#fff", "accent": "blue", "dark": 1}`)
	_, _, err := FromEnv("many", true, env(nil), home)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, tok := range []string{"txet", "accent", "dark"} {
		if !strings.Contains(err.Error(), `token "`+tok+`"`) {
			t.Errorf("error %q misses token %q", err, tok)
		}
	}
	if got := strings.Count(err.Error(), "\n") + 1; got != 3 {
		t.Errorf("want 3 problems, one per line; got %d:\n%v", got, err)
	}
}

func TestFromEnvUnknownTheme(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeTheme(t, home, "sunset", `{}`)
	for _, name := range []string{"sunest", "../sunset", "/etc/passwd", ".hidden"} {
		p, _, err := FromEnv(name, false, env(nil), home)
		if !errors.Is(err, ErrUnknownTheme) {
			t.Errorf("FromEnv(%q) err = %v; want ErrUnknownTheme", name, err)
			continue
		}
		if p.Name != "light" {
			t.Errorf("FromEnv(%q) fell back to %q; want light (auto on a light terminal)", name, p.Name)
		}
		if !strings.Contains(err.Error(), "sunset") {
			t.Errorf("FromEnv(%q) error %q does not list the user's themes", name, err)
		}
	}
	if _, _, err := FromEnv("sunest", false, env(nil), home); err == nil || !strings.Contains(err.Error(), `did you mean "sunset"?`) {
		t.Errorf("want a suggestion, got %v", err)
	}
}

func TestFromEnvShadowedUserTheme(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := writeTheme(t, home, "nord", `{"text": "#000"}`)
	p, warns, err := FromEnv("nord", true, env(nil), home)
	if err != nil || p != builtin["nord"] {
		t.Fatalf("FromEnv(nord) = %q, %v; want the built-in", p.Name, err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], path) {
		t.Errorf("warnings = %q; want one naming %s", warns, path)
	}
}

func TestAvailable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeTheme(t, home, "zebra", `{}`)
	writeTheme(t, home, "aurora", `not even json`) // listed: files are not parsed
	writeTheme(t, home, "dark", `{}`)              // shadowed by the built-in
	writeTheme(t, home, "Mono", `{}`)              // shadowed, in another case
	writeTheme(t, home, ".hidden", `{}`)
	if err := os.WriteFile(filepath.Join(Dir(home), "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(Dir(home), "folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := Available(home)
	want := append(Names(), "aurora", "zebra")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Available = %v\nwant        %v", got, want)
	}
	if got := Available(filepath.Join(home, "missing")); !slices.Equal(got, Names()) {
		t.Errorf("Available(missing) = %v; want the built-ins", got)
	}
	if got := Available(""); !slices.Equal(got, Names()) {
		t.Errorf(`Available("") = %v; want the built-ins`, got)
	}
}

func TestConfigHome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/u"}, "/x/cfg"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/home/u"}, filepath.Join("/home/u", ".config")},
		{map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".config")},
		{map[string]string{}, ""},
	}
	for _, tc := range tests {
		if got := ConfigHome(env(tc.env)); got != tc.want {
			t.Errorf("ConfigHome(%v) = %q; want %q", tc.env, got, tc.want)
		}
	}
	if Dir("") != "" || Dir("/c") != filepath.Join("/c", "latch", "themes") {
		t.Errorf("Dir = %q, %q", Dir(""), Dir("/c"))
	}
}

func TestNormaliseColour(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"#ABC": "#aabbcc", "#a0B1c2": "#a0b1c2", "0": "0", "15": "15", "255": "255", "007": "7",
		"256": "", "-1": "", "+1": "", "1.5": "", "#ggg": "", "#1234": "", "red": "", "": "", " 1": "", "0x1": "",
	} {
		got, ok := normaliseColour(in)
		if got != want || ok != (want != "") {
			t.Errorf("normaliseColour(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
