package ui

import (
	"fmt"
	"strings"

	"latch/session"
)

// note adds a batch of events fed to the model to the harness's trail.
func (h *harness) note(evs []session.Event) {
	var b strings.Builder
	for i, e := range evs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(eventName(e))
	}
	h.trail = append(h.trail, b.String())
}

// eventName is an event's type, with its turn and text where it has them.
func eventName(e session.Event) string {
	switch e := e.(type) {
	case *session.UserMessage:
		return fmt.Sprintf("UserMessage(turn %d, %q)", e.Turn, e.Text)
	case *session.TurnDone:
		return fmt.Sprintf("TurnDone(turn %d, %s)", e.Turn, e.Reason)
	case *session.AssistantDelta:
		return fmt.Sprintf("AssistantDelta(turn %d)", e.Turn)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", e), "*session.")
}

// report is what a failed wait prints: the events fed so far (one line a
// batch, runs of deltas folded), the session's and the model's state, the
// requests the fake Ollama got, and the screen.
func (h *harness) report() string {
	var b strings.Builder
	b.WriteString("events fed, one line a batch:\n")
	prev, n := "", 0
	flush := func() {
		if n > 0 {
			fmt.Fprintf(&b, "  %s", prev)
			if n > 1 {
				fmt.Fprintf(&b, " (×%d)", n)
			}
			b.WriteByte('\n')
		}
	}
	for _, line := range h.trail {
		if line == prev {
			n++
			continue
		}
		flush()
		prev, n = line, 1
	}
	flush()
	if h.sess != nil {
		fmt.Fprintf(&b, "session: running %v, history %d messages\n", h.sess.Running(), len(h.sess.History()))
	}
	fmt.Fprintf(&b, "model: running %v, turn %d, clearing %d, queued %q\n", h.m.running, h.m.turn, h.m.clearing, h.m.queued)
	if h.srv != nil {
		fmt.Fprintf(&b, "requests to the model: %d\n", len(h.srv.Requests()))
	}
	fmt.Fprintf(&b, "screen:\n%s", h.m.View())
	return b.String()
}
