package ui

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestIsBlankIsStripsAnswer checks isBlank against what it stands for,
// strings.TrimSpace(ansi.Strip(l)) == "", on glamour's padded blank lines
// and on random lines of spaces, escape sequences (whole and cut), text
// and other runes.
func TestIsBlankIsStripsAnswer(t *testing.T) {
	pieces := []string{" ", " ", "\x1b[38;5;252m", "\x1b[0m", "\x1b[", "\x1b", "[", "m", "x", "\t", "\u00a0",
		"é", "\x1b]8;;http://x\x07", "\x1b[?25l", "\x1b[1 q", "\r", "\x00", "\x7f"}
	cases := []string{"", strings.Repeat("\x1b[38;5;252m \x1b[0m", 112), "  \x1b[38;5;252m\x1b[0m"}
	rng := rand.New(rand.NewSource(1))
	for range 20000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	for _, l := range cases {
		if got, want := isBlank(l), strings.TrimSpace(ansi.Strip(l)) == ""; got != want {
			t.Fatalf("isBlank(%q) = %v, want %v", l, got, want)
		}
	}
}
