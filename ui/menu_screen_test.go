package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestMenuOverStreamingChat: the completion menu stays open while a reply
// streams and scrolls the chat under it, drawn by latch's own frame
// writer. After every frame the terminal holds exactly the model's frame
// (the scrolled chat does not smear the menu), and the menu's rows, which
// do not change, are never written again: the chat scrolls around them.
func TestMenuOverStreamingChat(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(srv.Close)
	sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
	log := &frameLog{}
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Output: log, SyncOutput: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := session.Header{Time: time.Now()}
	m.Update(eventsMsg{events: []session.Event{&session.UserMessage{Header: h, Turn: 1, Text: "write a long document"}}})
	m.View()
	log.expect(m)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	m.View()
	log.expect(m)
	opened := len(log.frames)
	toks := ollamatest.Tokens(ollamatest.Markdown(2000))
	for i := 0; i < len(toks); i += 50 {
		var evs []session.Event
		for _, tk := range toks[i:min(i+50, len(toks))] {
			evs = append(evs, &session.AssistantDelta{Header: h, Turn: 1, Text: tk.Content})
		}
		m.Update(eventsMsg{events: evs})
		m.View()
		log.expect(m)
	}
	term := make(termRows, 40)
	menu := map[int]bool{}
	for i, frame := range log.frames {
		written := term.apply(t, frame)
		for r := range term {
			if term[r] != log.want[i][r] {
				t.Fatalf("after frame %d, row %d on the terminal:\n %q\nwant\n %q", i, r+1, term[r], log.want[i][r])
			}
		}
		if i+1 == opened {
			for r, row := range term {
				if strings.Contains(row, "│") && (strings.Contains(row, "› /model") || strings.Contains(row, "enter takes") ||
					strings.Contains(row, "/servers") || strings.Contains(row, "more")) {
					menu[r] = true
				}
			}
			if len(menu) < 4 {
				t.Fatalf("the open menu is not on the terminal:\n%s", strings.Join(term, "\n"))
			}
		}
		if i >= opened {
			for r := range written {
				if menu[r] {
					t.Errorf("frame %d wrote the menu's row %d again: %q", i, r+1, written[r][1])
				}
			}
		}
	}
	if len(log.frames)-opened < 10 {
		t.Fatalf("%d frames under the menu", len(log.frames)-opened)
	}
	if !strings.Contains(strings.Join(term, "\n"), "› /model") {
		t.Errorf("the menu is gone at the end:\n%s", strings.Join(term, "\n"))
	}
}
