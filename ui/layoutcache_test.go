package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestLayoutCacheBudget scrolls a long chat to the top and back with a
// layout budget of a few screens: the chat keeps no more than that (plus
// what is on screen), and every screen on the way looks exactly as it does
// with everything cached.
func TestLayoutCacheBudget(t *testing.T) {
	evs := longChatEvents(120)
	small := longChatModel(t, evs)
	small.chat.cache.budget = 16 << 10
	big := longChatModel(t, evs)
	big.chat.cache.budget = 1 << 40

	var screens int
	walk := func(key tea.KeyType) {
		t.Helper()
		for range 400 {
			small.Update(keyOf(key))
			big.Update(keyOf(key))
			got, want := small.View(), big.View()
			screens++
			if got != want {
				t.Fatalf("screen %d differs with a small layout budget:\n%s\n--- want ---\n%s", screens, got, want)
			}
			if b := cachedBytes(small); b > small.chat.cache.budget+shownBytes(small) {
				t.Fatalf("screen %d: %d bytes of layout cached, budget %d", screens, b, small.chat.cache.budget)
			}
		}
	}
	walk(tea.KeyPgUp)
	if small.chat.topE != 0 || small.chat.topLine != 0 {
		t.Fatalf("400 pages up did not reach the top (entry %d, line %d)", small.chat.topE, small.chat.topLine)
	}
	walk(tea.KeyPgDown)
	if small.chat.scrolledUp() {
		t.Fatal("400 pages down did not reach the bottom")
	}
	if cachedBytes(big) <= 4*small.chat.cache.budget {
		t.Fatalf("the chat is too short to test the budget: %d bytes in all", cachedBytes(big))
	}
}

func cachedBytes(m *Model) int {
	n := 0
	for _, e := range m.chat.entries {
		for _, l := range e.lines {
			n += len(l) + 16
		}
	}
	return n
}

func shownBytes(m *Model) int {
	n := 0
	for i := m.chat.firstShown; i >= 0 && i <= m.chat.lastShown; i++ {
		for _, l := range m.chat.entries[i].lines {
			n += len(l) + 16
		}
	}
	return n
}
