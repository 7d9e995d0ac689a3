package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// TestForkWaitsForTheTurn: /fork typed while a reply streams waits for
// the turn, visibly, and keeps the chat meanwhile; once the turn is done
// it ends the program for the fork. Esc takes a waiting /fork back.
func TestForkWaitsForTheTurn(t *testing.T) {
	fh := newFakeHarness(t, 80, 24)
	fh.feed(&session.UserMessage{Header: session.Header{Type: session.TypeUserMessage}, Turn: 1, Text: "hello"})
	if !fh.m.running {
		t.Fatal("sending did not start a turn")
	}
	if msgs := runCmd(fh.m.runCommand("/fork")); fh.m.Forking() || len(msgs) != 0 {
		t.Fatalf("/fork while the turn runs ended the chat: %v", msgs)
	}
	if v := fh.m.View(); !strings.Contains(v, "queued (1): /fork runs when this reply ends") {
		t.Errorf("no word that /fork waits:\n%s", v)
	}
	_, cmd := fh.m.Update(eventsMsg{events: []session.Event{
		&session.TurnDone{Header: session.Header{Type: session.TypeTurnDone}, Turn: 1, Reason: session.ReasonStop}}})
	if !fh.m.Forking() || !isQuit(cmd) {
		t.Fatalf("/fork after the turn: forking %v; want the program to end for the fork", fh.m.Forking())
	}
}

// TestForkWaitingTakenBack: Esc takes back a /fork that waits for the
// turn, into the input; the turn's end then keeps the chat.
func TestForkWaitingTakenBack(t *testing.T) {
	fh := newFakeHarness(t, 80, 24)
	fh.feed(&session.UserMessage{Header: session.Header{Type: session.TypeUserMessage}, Turn: 1, Text: "hello"})
	fh.m.input.set("/fork")
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
	fh.press(tea.KeyMsg{Type: tea.KeyEsc})
	if got := fh.m.input.value(); got != "/fork" {
		t.Errorf("Esc brought back %q, want the /fork", got)
	}
	_, cmd := fh.m.Update(eventsMsg{events: []session.Event{
		&session.TurnDone{Header: session.Header{Type: session.TypeTurnDone}, Turn: 1, Reason: session.ReasonStop}}})
	if fh.m.Forking() || isQuit(cmd) {
		t.Error("a /fork taken back still ended the chat at the turn's end")
	}
}

// TestForkRefusedWhileServing: with a gateway beside the chat (--serve),
// its clients call through this session: /fork says so and keeps it.
func TestForkRefusedWhileServing(t *testing.T) {
	fh := newFakeHarness(t, 100, 24)
	fh.m.serving = func() (string, int) { return "127.0.0.1:8765", 1 }
	if msgs := runCmd(fh.m.runCommand("/fork")); fh.m.Forking() || len(msgs) != 0 {
		t.Fatalf("/fork while serving ended the chat: %v", msgs)
	}
	if v := fh.m.View(); !strings.Contains(v, "/fork: clients of the gateway") {
		t.Errorf("no word of why /fork is refused:\n%s", v)
	}
}
