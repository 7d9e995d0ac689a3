package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// The screens a user sees, drawn from synthetic session events (as
// TestGoldenCardStates does) so that every view is deterministic: no
// streaming, no clock, no server start-up order. Regenerate with
//
//	go test ./ui -run TestScreens -update

// screenSizes are the terminal sizes every screen is drawn at.
var screenSizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// screenModel is a UI over a session that is never started: what it shows
// comes from the events the test feeds. Servers are configured (so that
// /connect completes their names) but not connected.
func screenModel(t *testing.T, w, h int, st themes.Styles, servers ...string) *harness {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	var cfgs []session.ServerConfig
	for _, n := range servers {
		cfgs = append(cfgs, session.ServerConfig{Name: n, Command: "/nonexistent/never-started"})
	}
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261129-120000-abcdef", Servers: cfgs})
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Styles: st, FrameInterval: -1, Now: func() time.Time { return fixedNow },
		DarkBackground: true, Getenv: func(string) string { return "" }, ConfigHome: t.TempDir(), Profile: termenv.Ascii})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return &harness{t: t, srv: ol, sess: sess, m: m}
}

// feed hands events to the model as the event reader would, outside
// untilEvent: the events a wait left unseen are older than these, and no
// later wait looks at them.
func (h *harness) feed(evs ...session.Event) {
	h.note(evs)
	h.unseen = nil
	h.m.Update(eventsMsg{events: evs})
}

// screenMarkdown is a reply with a heading, a list, a code block and a table.
const screenMarkdown = "# Release notes\n\n" +
	"latch **0.3** brings three things:\n\n" +
	"- themes that switch live\n" +
	"- a `/theme` command\n" +
	"- a help overlay\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n" +
	"| theme | dark | bold |\n" +
	"|-------|------|------|\n" +
	"| nord  | yes  | no   |\n" +
	"| light | no   | no   |\n"

// markdownChat is one finished turn whose reply is screenMarkdown.
func markdownChat() []session.Event {
	hd := session.Header{}
	return []session.Event{
		&session.UserMessage{Header: hd, Turn: 1, Text: "What is new in latch 0.3?"},
		&session.AssistantMessage{Header: hd, Turn: 1, Content: screenMarkdown},
		&session.TurnDone{Header: hd, Turn: 1, Reason: session.ReasonStop},
	}
}

// thinkingTurn is a second turn whose short reply comes after thinking.
func thinkingTurn() []session.Event {
	hd := session.Header{}
	return []session.Event{
		&session.UserMessage{Header: hd, Turn: 2, Text: "Which theme suits a bright room?"},
		&session.AssistantMessage{Header: hd, Turn: 2, Content: "Use **light**, or `high-contrast` for more contrast.",
			Thinking: "A bright room means a light terminal background.\nThe light theme fits; high-contrast is an option too."},
		&session.TurnDone{Header: hd, Turn: 2, Reason: session.ReasonStop},
	}
}

// cardEvents are the events of TestGoldenCardStates: a card in every state.
func cardEvents() []session.Event {
	h := session.Header{}
	call := func(id, tool string, ro, destr bool) session.Event {
		return &session.ToolCallEvent{Header: h, Turn: 1, CallID: id, Server: "fs", Tool: tool,
			Arguments: map[string]any{"path": "/tmp/demo/" + id + ".txt"}, ReadOnly: ro, Destructive: destr}
	}
	perm := func(id, decision, by, reason string) session.Event {
		return &session.PermissionEvent{Header: h, Turn: 1, CallID: id, Decision: decision, By: by, Reason: reason}
	}
	return []session.Event{
		&session.UserMessage{Header: h, Turn: 1, Text: "show every card"},
		call("requested", "fs__get_file_info", true, false),
		call("running", "fs__read_text_file", true, false), perm("running", "allowed", "policy", ""),
		&session.ToolProgress{Header: h, CallID: "running", Progress: 3, Total: 4, Message: "reading"},
		call("done", "fs__read_text_file", true, false), perm("done", "allowed", "policy", ""),
		&session.ToolResultEvent{Header: h, CallID: "done", OK: true, DurationMS: 42, Size: 11, Preview: "hello\nworld"},
		call("iserror", "fs__read_text_file", true, false), perm("iserror", "allowed", "policy", ""),
		&session.ToolResultEvent{Header: h, CallID: "iserror", IsError: true, DurationMS: 3, Preview: "Access denied - path outside allowed directories"},
		call("denied", "fs__write_file", false, true),
		perm("denied", "denied", "policy", "fs__write_file is not allow-listed and the mode is read_only"),
		call("declined", "fs__write_file", false, true), perm("declined", "denied", "user", "the user said no"),
		call("cancelled", "fs__read_text_file", true, false), perm("cancelled", "allowed", "policy", ""),
		&session.ToolResultEvent{Header: h, CallID: "cancelled", Error: "cancelled: the user stopped this call", Cancelled: true, DurationMS: 900},
		call("failed", "fs__read_text_file", true, false), perm("failed", "allowed", "policy", ""),
		&session.ToolResultEvent{Header: h, CallID: "failed", Error: "server not connected: fs went away during the call", DurationMS: 5},
		call("parked", "fs__move_file", false, true), perm("parked", "parked", "policy", ""),
		&session.ApprovalParkedEvent{Header: h, Turn: 1, ApprovalID: "a1", CallID: "parked", Server: "fs", Tool: "fs__move_file"},
	}
}

// askEvents open the y/n modal over a destructive call.
func askEvents() []session.Event {
	h := session.Header{}
	return []session.Event{
		&session.UserMessage{Header: h, Turn: 1, Text: "write a note that says hello"},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "call_1", Server: "notes", Tool: "notes__write_note",
			Arguments: map[string]any{"text": "hello", "tags": []any{"greeting", "demo"}}, Destructive: true},
		&session.PermissionEvent{Header: h, Turn: 1, CallID: "call_1", Decision: "asked", By: "policy"},
	}
}

// serverEvents say two servers are up, in a fixed order.
func serverEvents() []session.Event {
	h := session.Header{}
	up := session.StateConnected.String()
	return []session.Event{
		&session.ServerStatusEvent{Header: h, Server: "files", State: up, Summary: "connected (3 tools)", Transport: "stdio", Tools: 3},
		&session.ServerStatusEvent{Header: h, Server: "notes", State: up, Summary: "connected (2 tools)", Transport: "stdio", Tools: 2},
	}
}

// checkScreen checks a frame's shape: exactly h rows, none wider than w.
func checkScreen(t *testing.T, v string, w, h int) {
	t.Helper()
	rows := strings.Split(v, "\n")
	if len(rows) != h {
		t.Errorf("the frame has %d rows, want %d:\n%s", len(rows), h, v)
	}
	for i, r := range rows {
		if got := lipgloss.Width(r); got > w {
			t.Errorf("row %d is %d cells wide on a %d-cell screen:\n%s", i, got, w, v)
		}
	}
}

// goldenScreen checks a frame's shape, then compares it with its golden file.
func goldenScreen(t *testing.T, m *Model, w, h int) {
	t.Helper()
	v := m.View()
	checkScreen(t, v, w, h)
	golden.RequireEqual(t, []byte(v))
}

func TestScreens(t *testing.T) {
	for _, sz := range screenSizes {
		w, h := sz.w, sz.h
		name := func(view string) string { return fmt.Sprintf("%s_%dx%d", view, w, h) }

		t.Run(name("empty"), func(t *testing.T) {
			goldenScreen(t, screenModel(t, w, h, themes.Default()).m, w, h)
		})

		t.Run(name("markdown"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default())
			s.feed(markdownChat()...)
			v := allText(s.m)
			for _, want := range []string{"Release notes", "themes that switch live", `fmt.Println("hi")`, "nord"} {
				if !strings.Contains(v, want) {
					t.Errorf("the reply lacks %q:\n%s", want, v)
				}
			}
			goldenScreen(t, s.m, w, h)
		})

		t.Run(name("thinking"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default())
			s.feed(markdownChat()...)
			evs := thinkingTurn()
			s.feed(evs...)
			words := len(strings.Fields(evs[1].(*session.AssistantMessage).Thinking))
			collapsed := fmt.Sprintf("┊ thought for %d words", words)
			t.Run("collapsed", func(t *testing.T) {
				if v := s.m.View(); !strings.Contains(v, collapsed+" · ctrl+t shows") || strings.Contains(v, "bright room means") {
					t.Errorf("thinking should be one collapsed line:\n%s", v)
				}
				goldenScreen(t, s.m, w, h)
			})
			s.key(tea.KeyCtrlT)
			t.Run("expanded", func(t *testing.T) {
				if v := s.m.View(); !strings.Contains(v, "┊ A bright room means a light terminal background.") {
					t.Errorf("ctrl+t should show the whole thinking:\n%s", v)
				}
				goldenScreen(t, s.m, w, h)
			})
			s.key(tea.KeyCtrlT)
			if v := s.m.View(); !strings.Contains(v, collapsed) {
				t.Errorf("a second ctrl+t should collapse it again:\n%s", v)
			}
		})

		t.Run(name("cards"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default())
			s.feed(cardEvents()...)
			pastGuard(s.m)
			t.Run("modal_parked", func(t *testing.T) { goldenScreen(t, s.m, w, h) })
			s.key(tea.KeyEsc) // decide later
			t.Run("bottom", func(t *testing.T) { goldenScreen(t, s.m, w, h) })
			for range 20 {
				s.key(tea.KeyPgUp)
			}
			t.Run("top", func(t *testing.T) {
				if v := s.m.View(); !strings.Contains(v, "show every card") || !strings.Contains(v, "↑ history") {
					t.Errorf("PgUp should reach the first message:\n%s", v)
				}
				goldenScreen(t, s.m, w, h)
			})
			// Every state is somewhere in the chat.
			all := allText(s.m)
			for _, want := range []string{"○ fs__get_file_info · read-only — requested", "running 0s", "[██████",
				"✓ fs__read_text_file · read-only — done in 42ms", "the tool reported an error (3ms)",
				"⛔ fs__write_file · destructive — denied by policy", "denied by user", "⏹ fs__read_text_file · read-only — cancelled",
				"✗ fs__read_text_file · read-only — failed", "⏸ fs__move_file · destructive — waiting for approval a1"} {
				if !strings.Contains(all, want) {
					t.Errorf("the chat lacks %q:\n%s", want, all)
				}
			}
		})

		t.Run(name("modal_ask"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default())
			s.feed(askEvents()...)
			if s.m.modal == nil {
				t.Fatalf("no modal:\n%s", s.m.View())
			}
			pastGuard(s.m)
			v := s.m.View()
			for _, want := range []string{"Allow this tool call?", "notes__write_note", "destructive", `"text": "hello"`, "y run once"} {
				if !strings.Contains(v, want) {
					t.Errorf("the modal lacks %q:\n%s", want, v)
				}
			}
			goldenScreen(t, s.m, w, h)
		})

		t.Run(name("help"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default())
			s.typeText("?")
			v := s.m.View()
			// On a screen too short for all of it, the overview is a page
			// over the chat that scrolls.
			if !s.m.helpOpen || !strings.Contains(v, "Keys") || !strings.Contains(v, "ctrl+d") || s.m.input.value() != "" {
				t.Errorf("? should open the overview over the chat and leave the input empty:\n%s", v)
			}
			if !strings.Contains(v, "PgUp PgDn scroll · lines 1–") {
				t.Errorf("on a %d-row screen the overview does not say it scrolls:\n%s", h, v)
			}
			goldenScreen(t, s.m, w, h)
			s.m.Update(tea.KeyMsg{Type: tea.KeyEnd})
			if v := s.m.View(); !strings.Contains(v, "/quit") || strings.Contains(v, "alt+enter") {
				t.Errorf("End should show the overview's last page:\n%s", v)
			}
			s.m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
			s.m.Update(tea.KeyMsg{Type: tea.KeyHome})
			if v := s.m.View(); !strings.Contains(v, "alt+enter") {
				t.Errorf("Home should show the overview's first page:\n%s", v)
			}
		})

		t.Run(name("complete_co"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "files", "notes")
			s.feed(serverEvents()...)
			s.typeText("/co")
			v := s.m.View()
			if !strings.Contains(v, "/connect") || !strings.Contains(v, "tab completes") || strings.Contains(v, "/close ") {
				t.Errorf("/co should offer /connect only:\n%s", v)
			}
			goldenScreen(t, s.m, w, h)
		})

		t.Run(name("complete_connect"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "files", "notes")
			s.feed(serverEvents()...)
			s.typeText("/connect ")
			v := s.m.View()
			for _, want := range []string{"/connect files", "connected (3 tools)", "/connect notes", "/connect all", "servers 2/2"} {
				if !strings.Contains(v, want) {
					t.Errorf("the popup lacks %q:\n%s", want, v)
				}
			}
			goldenScreen(t, s.m, w, h)
		})

		for _, theme := range []string{"mono", "high-contrast"} {
			t.Run(name(theme), func(t *testing.T) {
				pal, err := themes.Lookup(theme, true)
				if err != nil {
					t.Fatal(err)
				}
				s := screenModel(t, w, h, themes.Build(pal))
				if got := s.m.st.Palette.Name; got != pal.Name {
					t.Fatalf("theme %q, want %q", got, pal.Name)
				}
				s.feed(markdownChat()...)
				s.feed(askEvents()[1:]...)
				pastGuard(s.m)
				goldenScreen(t, s.m, w, h)
			})
		}

		// One colour profile. The profile is global to lipgloss (and to every
		// test of the package), so it is set here only, and put back.
		t.Run(name("markdown_ansi256"), func(t *testing.T) {
			lipgloss.SetColorProfile(termenv.ANSI256)
			defer lipgloss.SetColorProfile(termenv.Ascii)
			s := screenModel(t, w, h, themes.Default())
			s.feed(markdownChat()...)
			v := s.m.View()
			checkScreen(t, v, w, h)
			if !strings.Contains(v, "\x1b[38;5;") {
				t.Errorf("no 256-colour sequence in the frame:\n%q", v)
			}
			golden.RequireEqualEscape(t, []byte(v), true)
		})
	}

	// NO_COLOR as the program runs it: lipgloss detects the Ascii profile,
	// and the monochrome theme lifts it to ANSI for attributes only. The
	// frame has bold, reverse and the like, and not one colour.
	t.Run("nocolor_attributes", func(t *testing.T) {
		pal, _, err := themes.FromEnv("dracula", true, func(k string) string {
			if k == "NO_COLOR" {
				return "1"
			}
			return ""
		}, "")
		if err != nil || !pal.Mono {
			t.Fatalf("NO_COLOR gave %+v, %v", pal, err)
		}
		lipgloss.SetColorProfile(themes.RenderProfile(pal, termenv.Ascii))
		defer lipgloss.SetColorProfile(termenv.Ascii)
		s := screenModel(t, 120, 40, themes.Build(pal))
		s.feed(markdownChat()...)
		s.feed(cardEvents()[1:]...)
		pastGuard(s.m)
		s.key(tea.KeyEsc)
		v := s.m.View() // the input shows its placeholder
		s.typeText("two lines")
		s.key(tea.KeyCtrlJ)
		s.typeText("of input")
		v2 := s.m.View()
		if !strings.Contains(v2, "of input") {
			t.Fatalf("the input lacks the typed text:\n%q", v2)
		}
		checkScreen(t, v2, 120, 40)
		v += "\n" + v2
		attrs := map[string]bool{}
		for _, sgr := range sgrParams(v) {
			for i := 0; i < len(sgr); i++ {
				switch n := sgr[i]; {
				case n == 38 || n == 48 || n == 58 || (n >= 30 && n <= 37) || (n >= 40 && n <= 47) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107):
					t.Fatalf("NO_COLOR frame has colour (SGR %v):\n%q", sgr, v)
				default:
					attrs[strconv.Itoa(n)] = true
				}
			}
		}
		for _, a := range []string{"1", "7"} { // bold, reverse
			if !attrs[a] {
				t.Errorf("NO_COLOR frame lacks SGR %s (attributes seen: %v)", a, attrs)
			}
		}
	})

	// On a tall screen the overview is an overlay over the chat.
	t.Run("help_overlay_100x50", func(t *testing.T) {
		s := screenModel(t, 100, 50, themes.Default())
		s.feed(markdownChat()...)
		s.typeText("?")
		if !s.m.helpOpen {
			t.Fatalf("on a 50-row screen ? should open the overlay:\n%s", s.m.View())
		}
		goldenScreen(t, s.m, 100, 50)
		s.key(tea.KeyEsc)
		if s.m.helpOpen || strings.Contains(s.m.View(), "esc or ? closes") {
			t.Fatalf("esc should close the overlay:\n%s", s.m.View())
		}
	})
}

// sgrParams returns the parameters of every SGR sequence in s.
func sgrParams(s string) [][]int {
	var out [][]int
	for _, m := range sgrRE.FindAllStringSubmatch(s, -1) {
		var ps []int
		for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(f)
			ps = append(ps, n)
		}
		out = append(out, ps)
	}
	return out
}

var sgrRE = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// TestThemeSwitchesLive switches themes with /theme: built-ins, a user
// theme, and names that cannot be used, which leave the theme as it was.
func TestThemeSwitchesLive(t *testing.T) {
	s := screenModel(t, 80, 24, themes.Default())
	cfg := s.m.themeEnv.configHome
	dir := filepath.Join(cfg, "latch", "themes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("mine", `{"base": "dark", "accent": "12", "user": "#87d787", "bold": true}`)
	broken := write("broken", `{"base": "dark", "accent": "not-a-colour"}`)
	s.feed(markdownChat()...)

	last := func() *entry { return s.m.chat.entries[len(s.m.chat.entries)-1] }
	theme := func() string { return s.m.st.Palette.Name }
	if theme() != "dark" {
		t.Fatalf("start theme %q", theme())
	}

	// A built-in switches live: the styles, the chat and the input change.
	before := *s.m.st
	s.command("/theme high-contrast")
	if theme() != "high-contrast" || !s.m.st.Palette.Bold || s.m.st.Palette == before.Palette {
		t.Fatalf("after /theme high-contrast the palette is %+v", s.m.st.Palette)
	}
	if e := last(); e.kind != noticeEntry || e.text != "theme: high-contrast" {
		t.Fatalf("no confirmation: %+v\n%s", e, s.m.View())
	}
	if e := s.m.chat.entries[1]; e.kind != assistantEntry || e.lines != nil {
		t.Fatal("the chat keeps its layout in the old theme")
	}
	if lipgloss.ColorProfile() != termenv.Ascii {
		t.Fatalf("the colour profile changed to %v", lipgloss.ColorProfile())
	}
	checkScreen(t, s.m.View(), 80, 24)

	// An unknown name: one clear error, the theme stays.
	s.command("/theme nosuch")
	if theme() != "high-contrast" {
		t.Fatalf("/theme nosuch changed the theme to %q", theme())
	}
	if e := last(); e.kind != errorEntry || !strings.Contains(e.text, `/theme: unknown theme "nosuch"`) ||
		!strings.Contains(e.text, "high-contrast") || !strings.Contains(e.text, "mine") {
		t.Fatalf("error for /theme nosuch: %+v", e)
	}
	if v := s.m.View(); !strings.Contains(v, `✗ /theme: unknown theme "nosuch"`) {
		t.Fatalf("the error is not on screen:\n%s", v)
	}

	// A user theme, by its file name.
	s.command("/theme mine")
	if theme() != "mine" || s.m.st.Palette.Accent != "12" || s.m.st.Palette.User != "#87d787" {
		t.Fatalf("/theme mine gave %+v", s.m.st.Palette)
	}
	if e := last(); e.text != "theme: mine" {
		t.Fatalf("no confirmation: %+v", e)
	}

	// A broken user theme: the error names the file and the token; the
	// theme stays.
	s.command("/theme broken")
	if theme() != "mine" {
		t.Fatalf("/theme broken changed the theme to %q", theme())
	}
	e := last()
	if e.kind != errorEntry || !strings.Contains(e.text, broken) || !strings.Contains(e.text, `token "accent"`) {
		t.Fatalf("error for /theme broken should name %s and the token: %+v", broken, e)
	}

	// The list marks the current theme and offers the user's.
	s.command("/theme")
	if e := last(); !strings.Contains(e.text, "* mine") || !strings.Contains(e.text, "  broken") || !strings.Contains(e.text, "  nord") {
		t.Fatalf("/theme list: %q", e.text)
	}
	// Completion offers user themes as well.
	s.typeText("/theme mi")
	if v := s.m.View(); !strings.Contains(v, "/theme mine") {
		t.Fatalf("no completion of the user theme:\n%s", v)
	}
}

// TestScreensFitNarrow draws every overlay on narrow screens: no row may be
// wider than the screen (the terminal would cut it, or wrap it and tear
// the layout).
func TestScreensFitNarrow(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{40, 24}, {60, 20}, {72, 44}} {
		w, h := sz.w, sz.h
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			views := map[string]func(s *harness){
				"complete_co":      func(s *harness) { s.typeText("/co") },
				"complete_c":       func(s *harness) { s.typeText("/c") },
				"complete_connect": func(s *harness) { s.typeText("/connect ") },
				"complete_theme":   func(s *harness) { s.typeText("/theme ") },
				"menu_open":        func(s *harness) { s.typeText("/"); s.key(tea.KeyTab); s.key(tea.KeyDown) },
				"help":             func(s *harness) { s.typeText("?") },
				"modal_ask":        func(s *harness) { s.feed(askEvents()...) },
				"cards":            func(s *harness) { s.feed(cardEvents()...) },
				"markdown":         func(s *harness) { s.feed(markdownChat()...); s.feed(thinkingTurn()...); s.key(tea.KeyCtrlT) },
			}
			for name, do := range views {
				s := screenModel(t, w, h, themes.Default(), "files", "notes")
				s.feed(serverEvents()...)
				do(s)
				v := s.m.View()
				rows := strings.Split(v, "\n")
				for i, r := range rows {
					if got := lipgloss.Width(r); got > w {
						t.Errorf("%s: row %d is %d cells wide on a %d-cell screen:\n%s", name, i, got, w, v)
						break
					}
				}
				if len(rows) != h {
					t.Errorf("%s: %d rows, want %d", name, len(rows), h)
				}
			}
		})
	}
}

// inputRows returns the rows of a frame below the rule line: the input.
func inputRows(v string) []string {
	rows := strings.Split(v, "\n")
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.HasPrefix(ansi.Strip(rows[i]), "──") {
			out := rows[i+1:]
			for j := range out {
				out[j] = strings.TrimRight(out[j], " ")
			}
			return out
		}
	}
	return nil
}

// TestInputGrowsShowingEveryLine types a message line by line (Ctrl+J), as
// the program does: a frame after every key. The box grows with the text
// and shows it from its first line, with no empty rows, up to eight rows;
// then it scrolls to keep the cursor's line in view.
func TestInputGrowsShowingEveryLine(t *testing.T) {
	s := screenModel(t, 60, 24, themes.Default())
	var want []string
	for i := 1; i <= 10; i++ {
		if i > 1 {
			s.key(tea.KeyCtrlJ)
			s.m.View()
		}
		line := fmt.Sprintf("line %d", i)
		s.typeText(line)
		want = append(want, "> "+line)
		got := inputRows(s.m.View())
		exp := want[max(len(want)-maxInputRows, 0):]
		if strings.Join(got, "\n") != strings.Join(exp, "\n") {
			t.Fatalf("after %d lines the input shows\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(exp, "\n"))
		}
	}
	// A paste of several lines into an empty box shows them all.
	s.m.input.reset()
	s.m.layout()
	s.m.View()
	s.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("alpha\nbeta\ngamma"), Paste: true})
	if got := strings.Join(inputRows(s.m.View()), "\n"); got != "> alpha\n> beta\n> gamma" {
		t.Fatalf("after pasting three lines the input shows\n%s", got)
	}
	checkScreen(t, s.m.View(), 60, 24)
}

// TestInputTakesTheTheme checks that the input box draws with the theme's
// styles (and so follows /theme), not with the textarea's default colours.
func TestInputTakesTheTheme(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	s := screenModel(t, 60, 12, themes.Default())
	s.typeText("hello")
	input := func() string { return strings.Join(inputRows(s.m.View()), "\n") }
	prompt := s.m.st.Input.Prompt.Render("> ")
	if got := input(); !strings.Contains(got, prompt) {
		t.Fatalf("the input's prompt is not drawn in the theme's style %q:\n%q", prompt, got)
	}
	dark := prompt
	s.m.input.reset()
	s.command("/theme light")
	if s.m.st.Palette.Name != "light" {
		t.Fatalf("theme %q", s.m.st.Palette.Name)
	}
	s.typeText("hello")
	prompt = s.m.st.Input.Prompt.Render("> ")
	if got := input(); !strings.Contains(got, prompt) || prompt == dark {
		t.Fatalf("after /theme light the input's prompt is not drawn in the new style %q:\n%q", prompt, got)
	}
}
