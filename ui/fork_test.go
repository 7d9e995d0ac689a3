package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// TestForkWaitsForTheTurn: /fork while a reply streams says to wait and
// keeps the chat; once the turn is done it ends the program for the fork.
func TestForkWaitsForTheTurn(t *testing.T) {
	fh := newFakeHarness(t, 80, 24)
	fh.feed(&session.UserMessage{Header: session.Header{Type: session.TypeUserMessage}, Turn: 1, Text: "hello"})
	if !fh.m.running {
		t.Fatal("sending did not start a turn")
	}
	if msgs := runCmd(fh.m.runCommand("/fork")); fh.m.Forking() || len(msgs) != 0 {
		t.Fatalf("/fork while the turn runs ended the chat: %v", msgs)
	}
	if v := fh.m.View(); !strings.Contains(v, "/fork: the turn is still running") {
		t.Errorf("no word of why /fork waits:\n%s", v)
	}
	fh.feed(&session.TurnDone{Header: session.Header{Type: session.TypeTurnDone}, Turn: 1, Reason: session.ReasonStop})
	msgs := runCmd(fh.m.runCommand("/fork"))
	if !fh.m.Forking() || len(msgs) != 1 {
		t.Fatalf("/fork after the turn: forking %v, msgs %v; want the program to end for the fork", fh.m.Forking(), msgs)
	}
	if _, ok := msgs[0].(tea.QuitMsg); !ok {
		t.Errorf("/fork returned %T, want tea.Quit", msgs[0])
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
