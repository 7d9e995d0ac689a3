package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// /c shows the commands that start so; ↓ then moves into them at once
// (no Tab first): the first is selected, ↓ again the next, and Enter
// takes the selected one. ↑ from the popup selects the last one. The
// input is not changed by moving, and nothing is sent.
func TestArrowsMoveInThePopupWithoutTab(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.typeText("/c")
	items := h.m.popupItems()
	if len(items) < 3 || selectedRow(h.m.View()) != "" {
		t.Fatalf("/c should show several commands, none selected:\n%s", h.m.View())
	}
	first, second, last := strings.TrimSpace(items[0].text), strings.TrimSpace(items[1].text), strings.TrimSpace(items[len(items)-1].text)
	h.key(tea.KeyDown)
	if got := selectedText(h.m.View()); got != first {
		t.Fatalf("↓ after /c: %q selected, want %q:\n%s", got, first, h.m.View())
	}
	h.key(tea.KeyDown)
	if got := selectedText(h.m.View()); got != second || h.m.input.value() != "/c" {
		t.Fatalf("↓ again: %q selected (want %q), input %q", got, second, h.m.input.value())
	}
	if cmd := h.key(tea.KeyEnter); cmd != nil {
		h.m.Update(cmd())
	}
	if got := strings.TrimSpace(h.m.input.value()); got != second || len(h.srv.Requests()) != 0 {
		t.Fatalf("Enter should take %q into the input: %q", second, got)
	}

	h.m.input.reset()
	h.typeText("/c")
	h.key(tea.KeyUp)
	if got := selectedText(h.m.View()); got != last {
		t.Fatalf("↑ after /c: %q selected, want the last, %q:\n%s", got, last, h.m.View())
	}
}
