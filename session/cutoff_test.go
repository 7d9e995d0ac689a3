package session_test

import (
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// runnerDied is what a real Ollama v0.17.4 sends, as the last line of a 200
// NDJSON stream, when the model runner dies in mid-reply (llm/server.go
// wraps the runner's unexpected EOF; routes.go streamResponse writes
// {"error":…} once the stream has begun).
const runnerDied = "an error was encountered while running the model: unexpected EOF"

// A runner that dies in mid-reply leaves a reply that is cut off: marked
// partial, the turn ends cut_off (with the error said), and the model is not
// shown the text next turn as if it were a finished answer.
func TestRunnerDeathMidReplyIsCutOff(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	chunks := append(ollamatest.ThinkingTokens("Count to six."), ollamatest.Tokens("one two three four five six")...)
	thinking := len(ollamatest.ThinkingTokens("Count to six."))
	srv.Script(ollamatest.Turn{Chunks: chunks, ErrorAfter: thinking + 4, Error: runnerDied})
	s := newSession(t, srv, session.Options{Model: "qwen3:8b"})
	r := newReader(t, s)

	send(t, s, "count")
	evs := r.turn()
	msg := failed(t, evs, session.ReasonCutOff)
	containsAll(t, msg, runnerDied)
	am := one[*session.AssistantMessage](t, evs)
	if am.Content != "one two three four" || am.Thinking != "Count to six." || !am.Partial {
		t.Errorf("assistant_message = %+v, want partial \"one two three four\" with its thinking", am)
	}

	h := s.History()
	if len(h) != 2 || h[1].Role != "assistant" {
		t.Fatalf("History = %+v, want the prompt and the partial reply", h)
	}
	if !strings.HasPrefix(h[1].Content, "one two three four") || h[1].Content == "one two three four" ||
		!strings.Contains(h[1].Content, "cut off") {
		t.Errorf("history keeps %q: want the partial text, marked as cut off", h[1].Content)
	}

	// Next turn the model reads its broken reply as broken.
	srv.Script(ollamatest.TextTurn("five six."))
	send(t, s, "go on")
	if d := done(t, r.turn()); d.Reason != session.ReasonStop {
		t.Fatalf("turn after the cut-off: %q", d.Reason)
	}
	reqs := srv.Requests()
	m := reqs[len(reqs)-1].Messages
	if len(m) != 3 || m[1].Role != "assistant" || m[1].Content != h[1].Content {
		t.Errorf("second request messages = %+v, want the marked partial reply", m)
	}
}

// A connection that closes before the final line is the same for the model:
// the text is kept, marked as cut off.
func TestCutStreamIsMarkedInHistory(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("one two three four five"), CutAfter: 3})
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)
	send(t, s, "count")
	failed(t, r.turn(), session.ReasonCutOff)
	h := s.History()
	if len(h) != 2 || !strings.HasPrefix(h[1].Content, "one two three") || !strings.Contains(h[1].Content, "cut off") {
		t.Errorf("History = %+v, want the partial reply marked as cut off", h)
	}
}

// Tool calls that came before the runner died are not kept: the turn did not
// run them, so the model must not be shown them unanswered, and a resumed
// session must not take them for calls it still owes (and run them).
func TestCutOffReplyDropsItsToolCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	box := newLogBox()
	ol := newServer(t, logModel)
	ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{
		{Content: "Putting it in. "},
		{ToolCalls: []api.ToolCall{logCall("call_put_cut", "box__put", "thing", "hat")}},
		{Content: "Done."},
	}, ErrorAfter: 2, Error: runnerDied})
	s := session.New(logOptions(ol, dir, box, permissions.Auto))
	r := startLogged(t, s)
	send(t, s, "put a hat in the box")
	evs := r.turn()
	failed(t, evs, session.ReasonCutOff)
	if n := len(of[*session.ToolCallEvent](evs)); n != 0 {
		t.Errorf("a call of the broken reply went through the gate: %s", kinds(evs))
	}
	h := s.History()
	if len(h) != 2 || !strings.HasPrefix(h[1].Content, "Putting it in.") || !strings.Contains(h[1].Content, "cut off") {
		t.Fatalf("History = %+v", h)
	}
	id := s.ID()
	s.Close()

	s2, res := resume(t, logOptions(newServer(t, logModel), dir, box, permissions.Auto), dir, id)
	if len(res.InDoubt) != 0 || len(res.Pending) != 0 {
		t.Errorf("resumed: in doubt %+v, pending %+v", res.InDoubt, res.Pending)
	}
	r2 := startLogged(t, s2)
	if s2.Continue() {
		t.Error("the resumed session goes on with the broken reply's calls")
	}
	send(t, s2, "again?")
	finishedWith(t, r2.turn(), session.ReasonStop)
	if puts := box.written(); len(puts) != 0 {
		t.Errorf("the broken reply's call ran: %q", puts)
	}
}
