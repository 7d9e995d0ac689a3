package session_test

import (
	"slices"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// askExactThenAgain answers the first call of notes__write_note("one")
// with ans, then has the model call it again with the same arguments
// (which must run without asking) and with other ones (which must be
// asked about again: the test says no).
func askExactThenAgain(t *testing.T, p permissions.Policy, ans session.Answer) {
	t.Helper()
	h := newToolHarness(t, session.Options{Policy: p})
	h.ol.Script(
		callsTurn(toolCall("call_exa00001", "notes__write_note", "text", "one")), ollamatest.TextTurn("Saved one."),
		callsTurn(toolCall("call_exa00002", "notes__write_note", "text", "one")), ollamatest.TextTurn("Saved one again."),
		callsTurn(toolCall("call_exa00003", "notes__write_note", "text", "two")), ollamatest.TextTurn("Not saved."),
	)

	send(t, h.sess, "save one")
	evs := h.r.until(isAsked("call_exa00001"))
	if !h.sess.AnswerAsk("call_exa00001", ans) {
		t.Fatal("AnswerAsk found no waiting call")
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Saved one.")

	// The same tool with the same arguments runs without asking.
	send(t, h.sess, "save one again")
	evs = h.r.turn()
	finished(t, evs, "Saved one again.")
	if got := decisions(evs, "call_exa00002"); !slices.Equal(got, []string{"allowed/user"}) {
		t.Errorf("same arguments: permission events %v, want allowed by the grant without asking", got)
	}

	// Other arguments are asked about again.
	send(t, h.sess, "save two")
	evs = h.r.until(isAsked("call_exa00003"))
	if !h.sess.AnswerAsk("call_exa00003", session.AnswerNo) {
		t.Fatal("other arguments were not asked about")
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Not saved.")
	if got := decisions(evs, "call_exa00003"); !slices.Equal(got, []string{"asked/policy", "denied/user"}) {
		t.Errorf("other arguments: permission events %v, want asked then denied", got)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"one", "one"}) {
		t.Errorf("writes %v, want [one one]", w)
	}
}

func TestToolAskExactGrantsOnlyTheseArguments(t *testing.T) {
	t.Parallel()
	askExactThenAgain(t, permissions.Policy{Mode: permissions.Ask}, session.AnswerExact)
}

func TestToolAskAlwaysOnExactServerGrantsOnlyTheseArguments(t *testing.T) {
	t.Parallel()
	askExactThenAgain(t, permissions.Policy{Mode: permissions.Ask, ExactArgs: []string{"notes"}}, session.AnswerAlways)
}
