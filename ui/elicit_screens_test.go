package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/themes"
)

// formEvent is a form with every kind of field (mcptestutil.FormSchema).
func formEvent(t *testing.T) *session.ElicitationEvent {
	t.Helper()
	fields, err := mcp.ParseForm(mcptestutil.FormSchema(""))
	if err != nil {
		t.Fatal(err)
	}
	return &session.ElicitationEvent{ID: "f1", Server: "desk", Mode: session.ElicitForm,
		Message: "Please tell us about yourself, so that we can book the room.", Fields: fields}
}

// urlEvent is a URL request whose URL is longer than any screen is wide.
func urlEvent() *session.ElicitationEvent {
	return &session.ElicitationEvent{ID: "f2", Server: "auth", Mode: session.ElicitURL, Domain: "auth.example.com",
		Message: "Sign in to your account to let the server read your calendar.",
		URL: "https://auth.example.com/device/verify?user_code=WDJB-MJHT&client_id=latch-elicitation-demo" +
			"&redirect_uri=https%3A%2F%2Flocalhost%3A8976%2Fcallback&scope=calendar.read"}
}

// TestElicitScreens draws a server's requests for input: a form with
// every kind of field, the same form refusing a submit (problems next to
// their fields), a URL request (the URL whole, its domain apart), and one
// whose URL is 200,000 characters long (elided in the middle, saying how
// much; the reason, the domain and the keys stay on screen). Also at
// 60×20 and 50×18, where the form's bottom border was cut off: each box
// is whole there, its keys and border on screen.
// Regenerate with go test ./ui -run TestElicitScreens -update.
func TestElicitScreens(t *testing.T) {
	for _, sz := range smallScreenSizes {
		w, h := sz.w, sz.h
		name := func(view string) string { return fmt.Sprintf("%s_%dx%d", view, w, h) }
		t.Run(name("form"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "desk")
			s.feed(&session.UserMessage{Turn: 1, Text: "book the room"}, formEvent(t))
			pastGuard(s.m)
			v := s.m.View()
			for _, want := range []string{"desk asks you to fill in a form", "Email *", "an email address", "Name *", "Your full name", "esc cancels"} {
				if !strings.Contains(v, want) {
					t.Errorf("the form lacks %q:\n%s", want, v)
				}
			}
			goldenScreen(t, s.m, w, h)
			wholeBox(t, s.m.View())
			for range 13 { // every field comes into view as tab reaches it
				s.m.Update(tea.KeyMsg{Type: tea.KeyTab})
				checkScreen(t, s.m.View(), w, h)
			}
			if v := s.m.View(); !strings.Contains(v, "› Tools") || !strings.Contains(v, "[x] saw") {
				t.Errorf("the last field is not in view with the focus:\n%s", v)
			}
		})
		t.Run(name("form_error"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "desk")
			s.feed(&session.UserMessage{Turn: 1, Text: "book the room"}, formEvent(t))
			pastGuard(s.m)
			s.m.Update(runes("ada@"))
			s.m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
			v := s.m.View()
			if len(s.m.forms) != 1 || !strings.Contains(v, "✗ not an email address") || !strings.Contains(v, "✗ required") {
				t.Errorf("the refused submit:\n%s", v)
			}
			goldenScreen(t, s.m, w, h)
			wholeBox(t, s.m.View())
		})
		t.Run(name("url"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "auth")
			ev := urlEvent()
			s.feed(&session.UserMessage{Turn: 1, Text: "what is on my calendar?"}, ev)
			pastGuard(s.m)
			v := s.m.View()
			flat := strings.Join(strings.Fields(strings.NewReplacer("│", "", "url", "").Replace(v)), "")
			if !strings.Contains(flat, ev.URL) || !strings.Contains(v, "domain  auth.example.com") || !strings.Contains(v, "o open in the browser") {
				t.Errorf("the URL request does not show the URL whole:\n%s", v)
			}
			goldenScreen(t, s.m, w, h)
			wholeBox(t, s.m.View())
		})
		t.Run(name("url_long"), func(t *testing.T) {
			s := screenModel(t, w, h, themes.Default(), "auth")
			ev := longURLEvent()
			var copied []string
			s.m.clipboard = surely(func(text string) { copied = append(copied, text) })
			s.feed(&session.UserMessage{Turn: 1, Text: "what is on my calendar?"}, ev)
			pastGuard(s.m)
			v := s.m.View()
			flat := strings.Join(strings.Fields(strings.ReplaceAll(v, "│", "")), " ")
			for _, want := range []string{"auth asks you to open a link", "Sign in to your account", "domain auth.example.com",
				"url https://auth.example.com/device/", "characters left out)…",
				"&scope=calendar.read", "o open in the browser · c copy the link", "latch never opens it on its own"} {
				if !strings.Contains(flat, want) {
					t.Errorf("the request for a %d-character URL lacks %q:\n%s", len(ev.URL), want, v)
				}
			}
			goldenScreen(t, s.m, w, h)
			wholeBox(t, s.m.View())
			_, cmd := s.m.Update(runes("c"))
			runCmd(cmd)
			if len(copied) != 1 || copied[0] != ev.URL {
				t.Errorf("c copied %d texts, not the whole URL", len(copied))
			}
		})
	}
}

// longURLEvent is a URL request whose URL is 200,000 characters long.
func longURLEvent() *session.ElicitationEvent {
	ev := urlEvent()
	head := "https://auth.example.com/device/verify?user_code=WDJB-MJHT&state="
	tail := "&scope=calendar.read"
	fill := strings.Repeat("0123456789abcdef", 200_000/16)
	ev.URL = head + fill[:200_000-len(head)-len(tail)] + tail
	return ev
}

// smallScreenSizes are screenSizes and two short screens, where a box's
// fixed rows take most of the chat area.
var smallScreenSizes = append([]struct{ w, h int }{{60, 20}, {50, 18}}, screenSizes...)

// TestShortScreenBoxesHostileText: at 50×18, where the form and the link
// request drop their blank rows, what the server chose (its message, a
// field's description, a sampling request's prompt and messages, with an
// OSC 52 clipboard write, a clear-screen and a planted token-looking
// value) reaches the screen inert, and each box stays whole.
func TestShortScreenBoxesHostileText(t *testing.T) {
	const evil = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\u202e ghp_PLANTEDtoken0123456789abcdef "
	form := func(t *testing.T) *session.ElicitationEvent {
		ev := formEvent(t)
		ev.Message = evil + ev.Message
		ev.Fields[0].Description = evil
		return ev
	}
	link := func(*testing.T) *session.ElicitationEvent {
		ev := urlEvent()
		ev.Message = evil + ev.Message
		return ev
	}
	asked := func(*testing.T) *session.SamplingEvent {
		ev := samplingAsked("smp_1")
		ev.SystemPrompt, ev.Messages[0] = evil, evil+ev.Messages[0]
		return ev
	}
	for _, tc := range []struct {
		name, server string
		ev           func(*testing.T) session.Event
	}{
		{"form", "desk", func(t *testing.T) session.Event { return form(t) }},
		{"url", "auth", func(t *testing.T) session.Event { return link(t) }},
		{"sampling", "every", func(t *testing.T) session.Event { return asked(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := screenModel(t, 50, 18, themes.Default(), tc.server)
			s.feed(&session.UserMessage{Turn: 1, Text: "go"}, tc.ev(t))
			wholeBox(t, s.m.View()) // with its note: keys ignored for a moment
			pastGuard(s.m)
			v := s.m.View()
			checkScreen(t, v, 50, 18)
			wholeBox(t, v)
			if strings.ContainsAny(v, "\x1b\x07\u202e") {
				t.Errorf("a control reached the screen: %q", v)
			}
			if !strings.Contains(v, "␛]52;c;SGVsbG8=␇") {
				t.Errorf("the escape is not shown inert:\n%s", v)
			}
		})
	}
}
