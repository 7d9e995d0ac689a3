package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// typist types into a model the way a person at a terminal does: one key
// message a key, a key every 80–150 ms by the model's clock, which it
// owns.
type typist struct {
	m     *Model
	clock time.Time
	n     int
}

// typingGaps are the times between keys, in turn: human speed.
var typingGaps = []time.Duration{120, 80, 150, 95, 135, 110, 85, 140, 100, 125}

// newTypist gives m the typist's clock.
func newTypist(m *Model) *typist {
	ty := &typist{m: m, clock: fixedNow}
	m.now = func() time.Time { return ty.clock }
	return ty
}

// press sends one key after the next gap.
func (ty *typist) press(k tea.KeyMsg) {
	ty.clock = ty.clock.Add(typingGaps[ty.n%len(typingGaps)] * time.Millisecond)
	ty.n++
	ty.m.Update(k)
}

// keys types s, a key at a time (a space is the space key, as a terminal
// sends it).
func (ty *typist) keys(s string) {
	for _, r := range s {
		k := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
		if r == ' ' {
			k.Type = tea.KeySpace
		}
		ty.press(k)
	}
}

// wait is the person stopping for d.
func (ty *typist) wait(d time.Duration) { ty.clock = ty.clock.Add(d) }

// The sentence the person types while a box comes up mid-word (after
// before, in the middle of "and"): it holds y, n, a and A, each an answer
// key of some box, and a secret.
const (
	before = "my bank pin is 4321 an"
	after  = "d yes Any vault code is 99"
)

// typeThrough types the sentence, calling appear mid-word (it brings a
// box up), then Enter; it checks that every key went to the chat: the
// whole sentence was in the input, and Enter queued it behind the running
// turn, as any message sent during a reply.
func typeThrough(t *testing.T, h *harness, ty *typist, appear func() bool) {
	t.Helper()
	ty.keys(before)
	h.until(appear)
	if f := h.m.frontBox(); f == nil || f.focused() {
		t.Fatal("a box that came up mid-word took the keys")
	}
	if v := h.m.View(); !strings.Contains(v, "then tab to answer") || !strings.Contains(v, before) {
		t.Fatalf("the waiting box does not say how to take it, or the input is hidden:\n%s", v)
	}
	ty.keys(after)
	if got := h.m.input.value(); got != before+after {
		t.Fatalf("the input holds %q, want every key typed: %q", got, before+after)
	}
	ty.press(tea.KeyMsg{Type: tea.KeyEnter})
	if !slices.Equal(h.m.queued, []string{before + after}) || h.m.input.value() != "" {
		t.Fatalf("Enter did not send the chat message: queued %q, input %q", h.m.queued, h.m.input.value())
	}
}

// takeAfterPause is the person stopping, then Tab: the box takes the keys
// (by itself, the input being empty; the Tab that follows is used up, not
// given to the box), and answers them once its guard is over.
func takeAfterPause(t *testing.T, h *harness, ty *typist) {
	t.Helper()
	ty.wait(typingPause)
	h.m.Update(boxPausedMsg{}) // the box takes the keys; the person's Tab comes after its guard
	ty.wait(modalGuard)
	ty.press(tea.KeyMsg{Type: tea.KeyTab})
	if f := h.m.frontBox(); f == nil || !f.focused() {
		t.Fatalf("Tab after a pause did not take the box:\n%s", h.m.View())
	}
	ty.wait(modalGuard)
}

// TestBoxesWaitWhileTyping: a form, a sampling request and a permission
// question each come up in the middle of a word the person is typing at
// human speed (the issue's "my bank pin is 4321 and the vault code is
// 99"). Every key stays in the chat input, the y, n, a and A in the
// sentence answer nothing, the box gets no value, and Enter sends the chat
// message, not the form. After a pause and Tab the box takes the keys
// and is answered; the server gets that answer only, and the message
// typed goes to the model when the turn ends.
func TestBoxesWaitWhileTyping(t *testing.T) {
	t.Run("form", func(t *testing.T) {
		h, _ := formHarness(t, "", "https://example.com")
		ty := newTypist(h.m)
		h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_f", "desk__fill_form")}},
			ollamatest.TextTurn("Thanks."), ollamatest.TextTurn("Noted."))
		ty.keys("go on")
		ty.press(tea.KeyMsg{Type: tea.KeyEnter})
		typeThrough(t, h, ty, func() bool { return len(h.m.forms) > 0 })
		fm := h.m.forms[0]
		if len(h.m.forms) != 1 || fm.vals[0].text != "" || fm.focus != 0 {
			t.Fatalf("the form was answered or edited by the typing: %d forms, email %q, focus %d", len(h.m.forms), fm.vals[0].text, fm.focus)
		}
		takeAfterPause(t, h, ty)
		ty.keys("ada@example.com")
		ty.press(tea.KeyMsg{Type: tea.KeyTab})
		ty.keys("Ada")
		ty.press(tea.KeyMsg{Type: tea.KeyCtrlS})
		card := h.result()
		if !strings.Contains(card, `"email":"ada@example.com"`) || !strings.Contains(card, `"name":"Ada"`) || strings.Contains(card, "vault") {
			t.Fatalf("the server got:\n%s", card)
		}
		h.untilTurnDone() // the queued message's turn
		if all := allText(h.m); !strings.Contains(all, before+after) || !strings.Contains(all, "Noted.") {
			t.Fatalf("the message typed did not reach the model:\n%s", all)
		}
	})
	t.Run("sampling", func(t *testing.T) {
		h := samplingHarness(t, "")
		ty := newTypist(h.m)
		h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_ask", "every__ask")}},
			ollamatest.TextTurn("Octopuses have three hearts."), ollamatest.TextTurn("done"), ollamatest.TextTurn("Noted."))
		ty.keys("ask the server")
		ty.press(tea.KeyMsg{Type: tea.KeyEnter})
		typeThrough(t, h, ty, func() bool { return h.m.sampling.modal != nil })
		md := h.m.sampling.modal
		if md.said || md.c.step != session.SamplingAsked {
			t.Fatalf("the typing answered the request: said %v, step %s", md.said, md.c.step)
		}
		takeAfterPause(t, h, ty)
		ty.press(runes("y"))
		ty.wait(typingPause) // the person waits for the answer
		h.until(func() bool { md := h.m.sampling.modal; return md != nil && md.stage() == stageReview })
		ty.wait(modalGuard)
		ty.press(runes("y"))
		h.untilTurnDone()
		if all := allText(h.m); !strings.Contains(all, "the model said: Octopuses have three hearts.") {
			t.Fatalf("the answer was not sent:\n%s", all)
		}
		h.untilTurnDone()
		if all := allText(h.m); !strings.Contains(all, before+after) || !strings.Contains(all, "Noted.") {
			t.Fatalf("the message typed did not reach the model:\n%s", all)
		}
	})
	t.Run("permission", func(t *testing.T) {
		h, w := toolHarness(t, permissions.Ask)
		ty := newTypist(h.m)
		h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_w", "notes__write_note", "text", "hello")}},
			ollamatest.TextTurn("Written."), ollamatest.TextTurn("Noted."))
		ty.keys("write a note")
		ty.press(tea.KeyMsg{Type: tea.KeyEnter})
		typeThrough(t, h, ty, func() bool { return h.m.modal != nil })
		if h.m.modal == nil || w.count() != 0 || h.m.modal.card.state != cardAsking {
			t.Fatalf("the typing answered the question: modal open %v, runs %d", h.m.modal != nil, w.count())
		}
		takeAfterPause(t, h, ty)
		ty.press(runes("y"))
		h.untilTurnDone()
		if w.count() != 1 || !strings.Contains(allText(h.m), "Written.") {
			t.Fatalf("y after Tab: %d runs\n%s", w.count(), allText(h.m))
		}
		h.untilTurnDone()
		if all := allText(h.m); !strings.Contains(all, before+after) || !strings.Contains(all, "Noted.") {
			t.Fatalf("the message typed did not reach the model:\n%s", all)
		}
	})
}

// TestBoxFocusWhenIdle: a box that comes up when the person is idle (an
// empty input, no key for typingPause) takes the keys at once, its answers
// ignored for modalGuard; one that comes up a moment after a key, or with
// text in the input however old, waits.
func TestBoxFocusWhenIdle(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		fh := newFakeHarness(t, 100, 30)
		fh.press(runes("x"))
		fh.press(tea.KeyMsg{Type: tea.KeyBackspace})
		fh.clock = fh.clock.Add(typingPause)
		fh.feed(askEvents()...)
		if !fh.m.modal.box.focused() {
			t.Fatal("a question that came up with the person idle waits")
		}
		fh.press(runes("y"))
		if fh.m.modal == nil || len(fh.b.asks) != 0 {
			t.Fatal("y at once answered it")
		}
		fh.clock = fh.clock.Add(modalGuard)
		fh.press(runes("y"))
		if fh.m.modal != nil || !slices.Equal(fh.b.asks, []session.Answer{session.AnswerYes}) {
			t.Fatalf("y after the guard: answers %v", fh.b.asks)
		}
	})
	t.Run("just typed", func(t *testing.T) {
		fh := newFakeHarness(t, 100, 30)
		fh.press(runes("x"))
		fh.press(tea.KeyMsg{Type: tea.KeyBackspace})
		fh.clock = fh.clock.Add(typingPause - time.Millisecond)
		fh.feed(askEvents()...)
		if fh.m.modal.box.focused() {
			t.Fatal("a question that came up right after a key took the keys")
		}
	})
	t.Run("text in the input", func(t *testing.T) {
		fh := newFakeHarness(t, 100, 30)
		fh.press(runes("I was saying"))
		fh.clock = fh.clock.Add(time.Minute)
		fh.feed(askEvents()...)
		if fh.m.modal.box.focused() {
			t.Fatal("a question that came up over a half-typed message took the keys")
		}
	})
}

// TestWaitingBoxKeys: while a box waits, the chat keeps its keys: Esc does
// what it does in the chat (stops the reply; it does not deny the call),
// Tab does not complete, and a Tab in the middle of typing, or as the box
// appears, does not take the box. The box is drawn as waiting (square
// corners), the input under it.
func TestWaitingBoxKeys(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.press(runes("/"))
	fh.feed(askEvents()...)
	fh.press(tea.KeyMsg{Type: tea.KeyTab}) // as it appeared, and mid-typing
	if fh.m.modal.box.focused() || fh.m.input.value() != "/" {
		t.Fatalf("Tab mid-typing took the box or completed: input %q", fh.m.input.value())
	}
	v := fh.m.View()
	if !strings.Contains(v, "┌") || strings.Contains(v, "╭") || !strings.Contains(v, "pause, then tab to answer") || !strings.Contains(v, "> /") {
		t.Fatalf("the waiting box, the input:\n%s", v)
	}
	fh.press(tea.KeyMsg{Type: tea.KeyEsc})
	if fh.m.modal == nil || len(fh.b.asks) != 0 || fh.b.cancels != 1 {
		t.Fatalf("Esc: modal open %v, answers %v, cancels %d", fh.m.modal != nil, fh.b.asks, fh.b.cancels)
	}
	fh.clock = fh.clock.Add(typingPause)
	fh.press(tea.KeyMsg{Type: tea.KeyTab})
	if !fh.m.modal.box.focused() || fh.m.input.value() != "/" {
		t.Fatalf("Tab after a pause: focused %v, input %q", fh.m.modal.box.focused(), fh.m.input.value())
	}
	if v := fh.m.View(); !strings.Contains(v, "╭") || !strings.Contains(v, "keys ignored for a moment") {
		t.Fatalf("the box that took the keys:\n%s", v)
	}
}

// TestGoldenWaitingBoxes: a permission question, a form and a sampling
// request that came up while the person typed, at 80×24 and 120×40: drawn
// with square corners and the way to take them, the half-typed message in
// the input under them.
func TestGoldenWaitingBoxes(t *testing.T) {
	boxes := []struct {
		name string
		evs  []session.Event
	}{
		{"permission", askEvents()},
		{"form", []session.Event{&session.UserMessage{Turn: 1, Text: "book the room"}, formEvent(t)}},
		{"link", []session.Event{&session.UserMessage{Turn: 1, Text: "what is on my calendar?"}, urlEvent()}},
		{"sampling", []session.Event{&session.UserMessage{Turn: 1, Text: "try the sampling tool"}, samplingAsked("smp_1")}},
	}
	for _, b := range boxes {
		name, evs := b.name, b.evs
		for _, sz := range screenSizes {
			w, h := sz.w, sz.h
			t.Run(fmt.Sprintf("%s_%dx%d", name, w, h), func(t *testing.T) {
				s := screenModel(t, w, h, themes.Default(), "every")
				s.m.Update(runes("my bank pin is 4321 an"))
				s.feed(evs...)
				goldenScreen(t, s.m, w, h)
			})
		}
	}
}

// TestBoxBehindAnotherIsShownAnew: a form that had the keys, covered by a
// permission question, loses them; when the question is answered and the
// form comes back, it is shown anew: a key right after the answer (a y
// pressed twice) is not taken, and it answers keys only after its guard.
// An answer to a box is not typing: the box that comes back does not
// wait for a pause and Tab.
func TestBoxBehindAnotherIsShownAnew(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.feed(formEvent(t))
	if !fh.m.forms[0].box.focused() {
		t.Fatal("a form that came up with the person idle waits")
	}
	fh.clock = fh.clock.Add(modalGuard)
	fh.feed(askEvents()...)
	if fh.m.forms[0].box.focused() {
		t.Fatal("the form behind the question kept the keys")
	}
	fh.clock = fh.clock.Add(modalGuard)
	fh.press(runes("y"))
	if fh.m.modal != nil || len(fh.b.asks) != 1 {
		t.Fatalf("y did not answer the question: %v", fh.b.asks)
	}
	fh.clock = fh.clock.Add(modalGuard / 3)
	fh.press(runes("y"))
	if fh.m.forms[0].vals[0].text != "" || fh.m.input.value() != "" {
		t.Fatalf("a second y went somewhere: email %q, input %q", fh.m.forms[0].vals[0].text, fh.m.input.value())
	}
	fh.clock = fh.clock.Add(modalGuard)
	fh.press(runes("x"))
	if !fh.m.forms[0].box.focused() || fh.m.forms[0].vals[0].text != "x" {
		t.Fatalf("the form that came back after its guard: email %q, input %q", fh.m.forms[0].vals[0].text, fh.m.input.value())
	}
}
