package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// TestModalIgnoresKeysJustAfterOpening: the y of "yes", typed as the modal
// opens, must not run a destructive call. Keys within modalGuard of the
// modal opening are ignored; after it they answer.
func TestModalIgnoresKeysJustAfterOpening(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.feed(askEvents()...)
	if fh.m.modal == nil {
		t.Fatal("no modal")
	}
	fh.clock = fh.clock.Add(100 * time.Millisecond)
	for _, k := range []tea.KeyMsg{runes("y"), runes("n"), runes("a"), {Type: tea.KeyEsc}} {
		fh.press(k)
	}
	if fh.m.modal == nil || len(fh.b.asks) != 0 || fh.b.cancels != 0 {
		t.Fatalf("a key 100 ms after the modal opened answered it: answers %v, cancels %d", fh.b.asks, fh.b.cancels)
	}
	if v := fh.m.View(); !strings.Contains(v, "keys ignored for a moment") {
		t.Fatalf("no hint that keys are ignored:\n%s", v)
	}
	fh.clock = fh.clock.Add(300 * time.Millisecond) // 400 ms after opening
	if v := fh.m.View(); strings.Contains(v, "keys ignored for a moment") {
		t.Fatalf("the hint stays after the guard:\n%s", v)
	}
	fh.press(runes("yes"))
	if len(fh.b.asks) != 0 {
		t.Fatalf("a burst answered the modal: %v", fh.b.asks)
	}
	fh.press(runes("y"))
	if fh.m.modal != nil || len(fh.b.asks) != 1 || fh.b.asks[0] != session.AnswerYes {
		t.Fatalf("y 400 ms after opening: modal open %v, answers %v", fh.m.modal != nil, fh.b.asks)
	}
}

// TestParkedModalGuard: the approval modal is guarded the same way.
func TestParkedModalGuard(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	hd := session.Header{}
	fh.feed(
		&session.UserMessage{Header: hd, Turn: 1, Text: "move it"},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__move_file", Destructive: true},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "c1", Decision: "parked", By: "policy"},
		&session.ApprovalParkedEvent{Header: hd, Turn: 1, ApprovalID: "a1", CallID: "c1", Server: "fs", Tool: "fs__move_file"},
	)
	if fh.m.modal == nil {
		t.Fatal("no modal")
	}
	fh.press(runes("y"))
	if fh.m.modal == nil {
		t.Fatal("y at once decided the parked call")
	}
	fh.clock = fh.clock.Add(400 * time.Millisecond)
	fh.press(runes("y"))
	if fh.m.modal != nil || len(fh.b.decided) != 1 {
		t.Fatalf("y after the guard: modal %v, decided %v", fh.m.modal != nil, fh.b.decided)
	}
}

// TestModalGuardRedraws: opening the modal asks for a wake-up after the
// guard, so that its hint goes away without a key.
func TestModalGuardRedraws(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	_, cmd := fh.m.Update(eventsMsg{events: askEvents()})
	found := false
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(modalReadyMsg); ok {
			found = true
		}
	}
	if !found {
		t.Fatal("no wake-up after the guard")
	}
}
