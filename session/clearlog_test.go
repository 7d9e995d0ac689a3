package session_test

import (
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestClearIsLogged: /clear is in the log, so that `latch sessions` shows
// the first prompt after it, and a resumed session does not send the
// model what was cleared.
func TestClearIsLogged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("Noted."), ollamatest.TextTurn("Fresh."))
	s := session.New(logOptions(ol, dir, nil, 0))
	r := startLogged(t, s)
	send(t, s, "the old question")
	r.turn()
	s.Clear()
	send(t, s, "the new question")
	r.turn()
	id := s.ID()
	s.Close()

	list, err := session.List(dir)
	if err != nil || len(list) != 1 || list[0].FirstPrompt != "the new question" {
		t.Fatalf("List = %+v, %v; want the first prompt after /clear", list, err)
	}
	back, _ := resume(t, logOptions(ol, dir, nil, 0), dir, id)
	for _, m := range back.History() {
		if m.Content == "the old question" || m.Content == "Noted." {
			t.Fatalf("the resumed history holds what was cleared: %+v", back.History())
		}
	}
	if h := back.History(); len(h) != 2 || h[0].Content != "the new question" {
		t.Errorf("resumed history = %+v", h)
	}
}
