package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// TestBoxTakesKeysAfterPause: a question that comes up 200 ms after the
// person's last key waits; once they have paused for typingPause with an
// empty input it takes the keys by itself, on its tick or on their next
// key, and a y 1.5 s after the last key answers it instead of going into
// the chat. Its guard still follows the moment it took them; a key in the
// pause, or text in the input, keeps it waiting.
func TestBoxTakesKeysAfterPause(t *testing.T) {
	open := func(t *testing.T) *fakeHarness {
		fh := newFakeHarness(t, 100, 30)
		fh.press(runes("x"))
		fh.press(tea.KeyMsg{Type: tea.KeyBackspace})
		fh.clock = fh.clock.Add(200 * time.Millisecond)
		fh.feed(askEvents()...)
		if fh.m.modal == nil || fh.m.modal.box.focused() {
			t.Fatal("a question 200 ms after a key did not wait")
		}
		return fh
	}
	t.Run("next key", func(t *testing.T) {
		fh := open(t)
		fh.clock = fh.clock.Add(1300 * time.Millisecond) // 1.5 s after the last key
		fh.press(runes("y"))
		if fh.m.modal != nil || !slices.Equal(fh.b.asks, []session.Answer{session.AnswerYes}) || fh.m.input.value() != "" {
			t.Fatalf("y after a pause: modal open %v, answers %v, input %q", fh.m.modal != nil, fh.b.asks, fh.m.input.value())
		}
	})
	t.Run("tick", func(t *testing.T) {
		fh := open(t)
		fh.clock = fh.clock.Add(800 * time.Millisecond) // the pause is over
		fh.m.Update(boxPausedMsg{})
		if !fh.m.modal.box.focused() || strings.Contains(fh.m.View(), "pause, then tab") {
			t.Fatalf("the box still waits after the pause:\n%s", fh.m.View())
		}
		fh.clock = fh.clock.Add(100 * time.Millisecond)
		fh.press(runes("y"))
		if fh.m.modal == nil || len(fh.b.asks) != 0 {
			t.Fatal("y within the guard after the box took the keys answered it")
		}
		fh.clock = fh.clock.Add(modalGuard)
		fh.press(runes("y"))
		if !slices.Equal(fh.b.asks, []session.Answer{session.AnswerYes}) {
			t.Fatalf("y after the guard: answers %v", fh.b.asks)
		}
	})
	t.Run("typing on", func(t *testing.T) {
		fh := open(t)
		fh.clock = fh.clock.Add(700 * time.Millisecond)
		fh.press(runes("h"))
		fh.press(tea.KeyMsg{Type: tea.KeyBackspace})
		fh.clock = fh.clock.Add(900 * time.Millisecond) // 1.6 s after opening, 0.9 s after a key
		fh.press(runes("y"))
		if fh.m.modal == nil || len(fh.b.asks) != 0 || fh.m.input.value() != "y" {
			t.Fatalf("a key within a second of typing answered the box: answers %v, input %q", fh.b.asks, fh.m.input.value())
		}
		fh.clock = fh.clock.Add(time.Minute)
		fh.m.Update(boxPausedMsg{})
		fh.press(runes("y"))
		if fh.m.modal == nil || len(fh.b.asks) != 0 || fh.m.input.value() != "yy" {
			t.Fatalf("a box over a half-typed message took the keys: answers %v, input %q", fh.b.asks, fh.m.input.value())
		}
	})
}
