// Package earlyinit pins lipgloss's answer about the terminal's
// background before Bubble Tea's init asks the terminal for it.
//
// Bubble Tea v1 (tea_init.go) calls lipgloss.HasDarkBackground() in its
// init, in every process that links it: termenv writes OSC 11 and a cursor
// report request to the terminal and waits up to 5 s for an answer. latch
// approve, latch sessions and every other command would wait so, before a
// line of latch runs, in a terminal that answers neither. Setting the
// answer first makes that call return at once; latch asks the terminal
// itself (cli's queryBackground, within 200 ms) only where the answer is
// used, the chat with the theme "auto", and sets lipgloss's answer from it.
//
// Go initialises, among the packages whose imports are initialised, the
// one whose import path sorts first: this module's path, "earlyinit",
// sorts before "github.com/charmbracelet/bubbletea", so its init runs
// first (a package of the module latch, "latch/…", would run after). It
// is a module of its own for that reason only; the module latch requires
// it through a replace directive. It imports lipgloss and nothing of
// latch's.
package earlyinit

import "github.com/charmbracelet/lipgloss"

func init() {
	// Dark until asked: what lipgloss's own query assumes when a terminal
	// does not answer.
	lipgloss.SetHasDarkBackground(true)
}
