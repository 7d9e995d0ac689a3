package ui

import (
	"os"
	"strings"

	"github.com/atotto/clipboard"
)

// A copy goes to the system's clipboard command where there is one
// (pbcopy, wl-copy, xclip, xsel, the Windows clipboard): when it took
// the text, latch knows it is there. Otherwise, and always over SSH
// (the command would fill the remote machine's clipboard), it goes
// through the terminal as OSC 52, which latch cannot check: tmux passes
// it on only with set-clipboard on, and many terminals ignore it. The
// chat says which it was (copiedNotice).

// copyReport is what a copy knows of its arrival: sure when a clipboard
// command took the text; else hint says what can stop an OSC 52 write
// from reaching the clipboard here.
type copyReport struct {
	sure bool
	hint string
}

// copier puts text on the clipboard and reports how sure that is.
type copier func(text string) copyReport

// surely is a clipboard that takes every text (Options.Clipboard).
func surely(clip func(string)) copier {
	return func(text string) copyReport { clip(text); return copyReport{sure: true} }
}

// systemClipboard is the clipboard command when it works and latch runs
// on the machine whose clipboard it is, else the terminal's (osc52).
func systemClipboard(getenv func(string) string, native func(string) error, osc52 func(string)) copier {
	if getenv == nil {
		getenv = os.Getenv
	}
	return func(text string) copyReport {
		if !overSSH(getenv) && native(text) == nil {
			return copyReport{sure: true}
		}
		osc52(text)
		return copyReport{hint: osc52Hint(getenv)}
	}
}

// nativeClipboard runs the system's clipboard command.
func nativeClipboard(text string) error { return clipboard.WriteAll(text) }

func overSSH(getenv func(string) string) bool {
	return getenv("SSH_TTY") != "" || getenv("SSH_CONNECTION") != ""
}

// osc52Hint says, for where latch runs, what keeps an OSC 52 write from
// the clipboard and how to turn it on.
func osc52Hint(getenv func(string) string) string {
	switch {
	case getenv("TMUX") != "":
		return "inside tmux, add `set -g set-clipboard on` to ~/.tmux.conf"
	case getenv("STY") != "" || strings.HasPrefix(getenv("TERM"), "screen"):
		return "GNU screen passes it on only if the terminal around it takes OSC 52"
	case overSSH(getenv):
		return "over SSH, your own terminal must take OSC 52"
	}
	return "if nothing pastes, your terminal does not take OSC 52: select with the mouse"
}
