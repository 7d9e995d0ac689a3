package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// keyNames are the names of keys latch binds (and some the editor binds),
// which a burst of typed characters may spell.
var keyNames = []string{"ctrl+c", "esc", "enter", "ctrl+t", "ctrl+o", "ctrl+y", "pgup", "pgdown", "tab",
	"ctrl+end", "shift+up", "shift+down", "alt+enter", "ctrl+j", "ctrl+k", "ctrl+u", "ctrl+v", "up", "q"}

// TestRuneBurstsAreText types key names as one burst of characters (as a
// fast typist or a paste without bracketed paste delivers them): each is
// text in the input and does nothing else.
func TestRuneBurstsAreText(t *testing.T) {
	for _, name := range append(keyNames, "?", "y") {
		for _, paste := range []bool{false, true} {
			if len([]rune(name)) == 1 && !paste {
				continue // one character typed alone is that key
			}
			fh := newFakeHarness(t, 80, 24)
			fh.m.running = true // Esc would cancel the reply
			k := runes(name)
			k.Paste = paste
			msgs := fh.press(k)
			for _, msg := range msgs {
				if _, ok := msg.(tea.QuitMsg); ok {
					t.Fatalf("%q (paste %v) quit latch", name, paste)
				}
			}
			if fh.m.quitting || fh.b.cancels != 0 || len(fh.b.sends) != 0 {
				t.Fatalf("%q (paste %v): quitting %v, %d cancels, sent %q", name, paste, fh.m.quitting, fh.b.cancels, fh.b.sends)
			}
			if fh.m.helpOpen || fh.m.view.expandCards || fh.m.chat.scrolledUp() || fh.m.picker != nil {
				t.Fatalf("%q (paste %v) acted as a key", name, paste)
			}
			if got := fh.m.input.value(); got != name {
				t.Fatalf("%q (paste %v): the input holds %q", name, paste, got)
			}
		}
	}
}

// TestTypedSentenceWithKeyNames types a sentence holding key names in
// bursts: it is all text, and Enter then sends it whole.
func TestTypedSentenceWithKeyNames(t *testing.T) {
	fh := newFakeHarness(t, 80, 24)
	for _, burst := range []string{"type ", "ctrl+c", " here, then ", "esc", " and ", "enter"} {
		fh.press(runes(burst))
	}
	const want = "type ctrl+c here, then esc and enter"
	if fh.m.quitting || fh.m.input.value() != want {
		t.Fatalf("quitting %v, input %q", fh.m.quitting, fh.m.input.value())
	}
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
	if len(fh.b.sends) != 1 || fh.b.sends[0] != want {
		t.Fatalf("sent %q", fh.b.sends)
	}
}

// TestRealKeysStillWork: the keys themselves, by type, still act.
func TestRealKeysStillWork(t *testing.T) {
	fh := newFakeHarness(t, 100, 60)
	fh.press(runes("?"))
	if !fh.m.helpOpen {
		t.Fatal("? alone on an empty input should open the help")
	}
	fh.press(tea.KeyMsg{Type: tea.KeyEsc})
	if fh.m.helpOpen {
		t.Fatal("esc should close the help")
	}
	fh.m.running = true
	fh.press(tea.KeyMsg{Type: tea.KeyEsc})
	if fh.b.cancels != 1 {
		t.Fatalf("esc while streaming: %d cancels", fh.b.cancels)
	}
	// Ctrl+C stops the reply; a second one quits (interrupt.go).
	fh.m.Update(tea.KeyMsg{Type: tea.KeyCtrlC})
	if fh.b.cancels != 2 || fh.m.quitting {
		t.Fatalf("ctrl+c while streaming: %d cancels, quitting %v", fh.b.cancels, fh.m.quitting)
	}
	if _, cmd := fh.m.Update(tea.KeyMsg{Type: tea.KeyCtrlC}); !fh.m.quitting || !isQuit(cmd) {
		t.Fatal("a second ctrl+c did not quit")
	}
}

// TestRuneBurstsInTheModalAndToken: in the modal a burst answers nothing,
// and in the /token prompt it is part of the token.
func TestRuneBurstsInTheModalAndToken(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.feed(askEvents()...)
	fh.clock = fh.clock.Add(time.Second)
	for _, name := range []string{"esc", "ctrl+c", "y", "yes", "n", "a"} {
		k := runes(name)
		k.Paste = len([]rune(name)) == 1
		fh.press(k)
	}
	if fh.m.modal == nil || len(fh.b.asks) != 0 || fh.b.cancels != 0 || fh.m.quitting {
		t.Fatalf("a burst answered the modal: modal %v, answers %v, cancels %d", fh.m.modal != nil, fh.b.asks, fh.b.cancels)
	}
	fh.press(runes("y"))
	if len(fh.b.asks) != 1 || fh.b.asks[0] != session.AnswerYes {
		t.Fatalf("y typed alone should answer: %v", fh.b.asks)
	}

	fh = newFakeHarness(t, 100, 30)
	fh.b.servers = []session.ServerStatus{{Name: "web", Transport: "http"}}
	fh.m.input.set("/token web")
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
	if fh.m.token == nil {
		t.Fatalf("no token prompt:\n%s", fh.m.View())
	}
	fh.press(runes("abc"))
	fh.press(runes("esc"))
	fh.press(runes("ctrl+u"))
	if fh.m.token == nil || fh.m.token.in.Value() != "abcescctrl+u" {
		t.Fatalf("token prompt after bursts: open %v", fh.m.token != nil)
	}
	if strings.Contains(fh.m.View(), "abcesc") {
		t.Fatal("the token is shown")
	}
}
