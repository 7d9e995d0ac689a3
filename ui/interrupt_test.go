package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

const againHint = "Ctrl+C again to quit"

// isQuit reports whether cmd quits the program.
func isQuit(cmd tea.Cmd) bool {
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

// ctrlC presses Ctrl+C without running its command (the hint's timer).
func (fh *fakeHarness) ctrlC() tea.Cmd {
	_, cmd := fh.m.Update(tea.KeyMsg{Type: tea.KeyCtrlC})
	return cmd
}

// hintRow is the rule line between the chat and the input.
func (fh *fakeHarness) hintRow() string {
	rows := strings.Split(fh.m.View(), "\n")
	return rows[len(rows)-1-fh.m.input.height()]
}

// wantArmed checks that latch still runs and says a second Ctrl+C quits.
func (fh *fakeHarness) wantArmed(what string) {
	fh.t.Helper()
	if fh.m.quitting {
		fh.t.Fatalf("%s: latch quit", what)
	}
	if !strings.Contains(fh.hintRow(), againHint) {
		fh.t.Fatalf("%s: no %q above the input:\n%s", what, againHint, fh.m.View())
	}
}

// streaming feeds a turn whose reply has begun.
func (fh *fakeHarness) streaming(partial string) {
	h := session.Header{}
	fh.feed(&session.UserMessage{Header: h, Turn: 1, Text: "tell me a story"},
		&session.AssistantDelta{Header: h, Turn: 1, Text: partial})
}

// TestCtrlCMidReplyStopsIt: Ctrl+C while a reply streams stops it as Esc
// does, keeps latch running with the partial reply on screen and says
// "Ctrl+C again to quit"; a second Ctrl+C within the window quits.
func TestCtrlCMidReplyStopsIt(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.streaming("Once upon a time there was a partial reply")
	fh.ctrlC()
	if fh.b.cancels != 1 {
		t.Fatalf("ctrl+c mid-reply: %d cancels, want 1", fh.b.cancels)
	}
	fh.wantArmed("ctrl+c mid-reply")
	if !strings.Contains(allText(fh.m), "Once upon a time there was a partial reply") {
		t.Fatalf("the partial reply is gone:\n%s", allText(fh.m))
	}
	fh.clock = fh.clock.Add(quitWindow - time.Millisecond)
	if cmd := fh.ctrlC(); !fh.m.quitting || !isQuit(cmd) {
		t.Fatal("a second ctrl+c within the window did not quit")
	}
}

// TestCtrlCStopsARunningTool: with a tool call running, Ctrl+C cancels
// the turn (and the call with it).
func TestCtrlCStopsARunningTool(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	h := session.Header{}
	fh.feed(askEvents()[:2]...)
	fh.feed(&session.PermissionEvent{Header: h, Turn: 1, CallID: "call_1", Decision: "allowed", By: "policy"})
	if !fh.m.anyRunning() {
		t.Fatal("no running card")
	}
	fh.ctrlC()
	if fh.b.cancels != 1 {
		t.Fatalf("ctrl+c with a tool running: %d cancels, want 1", fh.b.cancels)
	}
	fh.wantArmed("ctrl+c with a tool running")
}

// TestCtrlCWithABoxOpen: Ctrl+C with the permission question open denies
// the call and stops the turn (as Esc on it does), whether or not the box
// has the keys; a parked question closes and the call stays parked: the
// turn is not cancelled.
func TestCtrlCWithABoxOpen(t *testing.T) {
	for _, focused := range []bool{false, true} {
		fh := newFakeHarness(t, 100, 30)
		if !focused {
			fh.press(runes("x")) // typing: the box waits
		}
		fh.feed(askEvents()...)
		if fh.m.modal == nil || fh.m.modal.box.focused() != focused {
			t.Fatalf("the box should be open, focused %v", focused)
		}
		fh.ctrlC()
		if fh.m.modal != nil || len(fh.b.asks) != 1 || fh.b.asks[0] != session.AnswerNo || fh.b.cancels != 1 {
			t.Fatalf("focused %v: modal %v, answers %v, cancels %d", focused, fh.m.modal != nil, fh.b.asks, fh.b.cancels)
		}
		fh.wantArmed("ctrl+c on the question")
	}

	fh := newFakeHarness(t, 100, 30)
	h := session.Header{}
	fh.feed(askEvents()[:2]...)
	fh.feed(&session.PermissionEvent{Header: h, Turn: 1, CallID: "call_1", Decision: "parked", By: "policy"},
		&session.ApprovalParkedEvent{Header: h, Turn: 1, ApprovalID: "a1", CallID: "call_1", Tool: "notes__write_note"})
	pastGuard(fh.m)
	fh.ctrlC()
	if fh.m.modal != nil || fh.b.cancels != 0 || len(fh.b.asks) != 0 {
		t.Fatalf("parked: modal %v, cancels %d, answers %v", fh.m.modal != nil, fh.b.cancels, fh.b.asks)
	}
	if !strings.Contains(allText(fh.m), "approval a1 is waiting") || fh.m.pending != 1 {
		t.Fatalf("the parked call should still wait (pending %d):\n%s", fh.m.pending, allText(fh.m))
	}
	fh.wantArmed("ctrl+c on a parked question")
}

// TestCtrlCIdle: at an idle prompt, Ctrl+C clears the text typed (and
// arms); on an empty input it only arms; a second one quits.
func TestCtrlCIdle(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.press(runes("half a thought"))
	fh.ctrlC()
	if v := fh.m.input.value(); v != "" {
		t.Fatalf("ctrl+c left %q in the input", v)
	}
	if fh.b.cancels != 0 {
		t.Fatalf("ctrl+c at an idle prompt cancelled %d times", fh.b.cancels)
	}
	fh.wantArmed("ctrl+c on typed text")
	if cmd := fh.ctrlC(); !isQuit(cmd) {
		t.Fatal("the second ctrl+c did not quit")
	}

	fh = newFakeHarness(t, 100, 30)
	fh.ctrlC()
	fh.wantArmed("ctrl+c on an empty input")
	if cmd := fh.ctrlC(); !isQuit(cmd) {
		t.Fatal("the second ctrl+c did not quit")
	}
}

// TestCtrlCWindowExpires: the hint goes when the window is over, by the
// model's clock, and a Ctrl+C after it arms again instead of quitting.
func TestCtrlCWindowExpires(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.ctrlC()
	fh.wantArmed("ctrl+c")
	fh.clock = fh.clock.Add(quitWindow)
	fh.m.Update(quitWindowOverMsg{})
	if strings.Contains(fh.hintRow(), againHint) {
		t.Fatalf("the hint is still there after the window:\n%s", fh.m.View())
	}
	fh.ctrlC()
	fh.wantArmed("ctrl+c after the window")
}

// TestCtrlCDropsTheQueue: messages queued during a reply are not sent
// after a Ctrl+C; they are in the history.
func TestCtrlCDropsTheQueue(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.streaming("Working on it")
	fh.press(runes("and one more thing"))
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
	if len(fh.m.queued) != 1 {
		t.Fatalf("queued %q", fh.m.queued)
	}
	fh.ctrlC()
	fh.feed(&session.TurnDone{Header: session.Header{}, Turn: 1, Reason: session.ReasonCancelled})
	if len(fh.b.sends) != 0 || len(fh.m.queued) != 0 {
		t.Fatalf("sent %q, queued %q after ctrl+c", fh.b.sends, fh.m.queued)
	}
	if !strings.Contains(allText(fh.m), "not sent: 1 queued message") {
		t.Fatalf("no word of the dropped message:\n%s", allText(fh.m))
	}
	fh.press(tea.KeyMsg{Type: tea.KeyUp})
	if v := fh.m.input.value(); v != "and one more thing" {
		t.Fatalf("↑ after ctrl+c: %q", v)
	}
}

// TestCtrlD: Ctrl+D on an empty input quits at once; on text it deletes
// the character under the cursor, as before.
func TestCtrlD(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.press(runes("abc"))
	fh.press(tea.KeyMsg{Type: tea.KeyHome})
	if _, cmd := fh.m.Update(tea.KeyMsg{Type: tea.KeyCtrlD}); fh.m.quitting || cmd != nil && isQuit(cmd) {
		t.Fatal("ctrl+d on text quit")
	}
	if v := fh.m.input.value(); v != "bc" {
		t.Fatalf("ctrl+d on text: %q, want %q", v, "bc")
	}
	fh = newFakeHarness(t, 100, 30)
	if _, cmd := fh.m.Update(tea.KeyMsg{Type: tea.KeyCtrlD}); !fh.m.quitting || !isQuit(cmd) {
		t.Fatal("ctrl+d on an empty input did not quit")
	}
}

// TestCtrlCClosesAForm: a server's form open in front is cancelled (as
// Esc on it does), and latch stays.
func TestCtrlCClosesAForm(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.feed(formEvent(t))
	if len(fh.m.forms) != 1 {
		t.Fatal("no form")
	}
	fh.ctrlC()
	if len(fh.m.forms) != 0 {
		t.Fatal("the form is still open after ctrl+c")
	}
	fh.wantArmed("ctrl+c on a form")
}

// TestCtrlCThenTypingDoesNotQuit: a key typed after a Ctrl+C disarms the
// quit, so a Ctrl+C soon after clears what was typed (and arms again)
// instead of quitting with it lost; a third quits.
func TestCtrlCThenTypingDoesNotQuit(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.ctrlC()
	fh.wantArmed("ctrl+c at an empty prompt")
	fh.clock = fh.clock.Add(300 * time.Millisecond)
	fh.press(runes("wait, one more thing"))
	if strings.Contains(fh.hintRow(), againHint) {
		t.Fatalf("typing did not take back %q:\n%s", againHint, fh.m.View())
	}
	fh.clock = fh.clock.Add(300 * time.Millisecond)
	if cmd := fh.ctrlC(); fh.m.quitting || isQuit(cmd) {
		t.Fatal("ctrl+c after typing quit; it should clear the input")
	}
	if v := fh.m.input.value(); v != "" {
		t.Fatalf("ctrl+c after typing left the input %q", v)
	}
	fh.wantArmed("ctrl+c clearing the input")
	if cmd := fh.ctrlC(); !fh.m.quitting || !isQuit(cmd) {
		t.Fatal("a ctrl+c right after the one that cleared the input did not quit")
	}
}
