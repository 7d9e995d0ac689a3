package session

import (
	"strings"

	"latch/ui/sanitize"
)

// Display returns the event as it may be shown: a copy with every string
// in it — text, reasons, errors, names, ids, arguments, at any depth —
// passed through sanitize.Text, so that nothing a model, a server or a
// hand-edited log put there can drive the terminal. The screen and the
// -p output take events only through it. A stream's CR that its LF will
// follow in the next piece is dropped, not shown.
func Display(e Event) Event {
	switch d := e.(type) {
	case *AssistantDelta:
		if strings.HasSuffix(d.Text, "\r") {
			c := *d
			c.Text = strings.TrimSuffix(c.Text, "\r")
			e = &c
		}
	case *ThinkingDelta:
		if strings.HasSuffix(d.Text, "\r") {
			c := *d
			c.Text = strings.TrimSuffix(c.Text, "\r")
			e = &c
		}
	}
	return sanitize.MapStrings(e, sanitize.Text)
}
