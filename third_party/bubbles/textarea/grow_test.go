package textarea

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestLinesGrowOnDemand: the copy's one change. The value starts with
// room for one line, not maxLines, and grows as lines come: a paste, new
// lines typed in the middle, a reset, all keep the text the original
// kept, and maxLines still bounds it.
func TestLinesGrowOnDemand(t *testing.T) {
	m := New()
	m.MaxHeight = 0
	m.CharLimit = 0
	m.Focus()
	if c := cap(m.value); c != minHeight {
		t.Fatalf("New: room for %d lines, want %d", c, minHeight)
	}

	lines := make([]string, 300)
	for i := range lines {
		lines[i] = strings.Repeat("x", i%7)
	}
	m.InsertString(strings.Join(lines, "\n"))
	if got := m.Value(); got != strings.Join(lines, "\n") {
		t.Fatalf("after a 300-line paste the value differs")
	}

	// A newline typed in the middle splits that line and shifts the rest.
	m.row, m.col = 100, 2
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	want := append(append(append([]string{}, lines[:100]...), lines[100][:2], lines[100][2:]), lines[101:]...)
	if got := m.Value(); got != strings.Join(want, "\n") {
		t.Fatalf("after Enter in line 100 the value differs")
	}

	m.Reset()
	if m.Value() != "" || cap(m.value) != minHeight {
		t.Fatalf("Reset: value %q, room for %d lines", m.Value(), cap(m.value))
	}

	m.InsertString(strings.Repeat("a\n", maxLines+50))
	if n := m.LineCount(); n != maxLines {
		t.Fatalf("a paste past maxLines: %d lines, want %d", n, maxLines)
	}
}
