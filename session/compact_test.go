package session_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"latch/session"
	"latch/session/eventtest"
	"latch/session/ollamatest"
)

// summaryAsk picks latch's request for a compaction's summary.
var summaryAsk = ollamatest.LastUserHas("Summarize the conversation above")

// longPrompt is turn i's prompt: about 300 tokens (as the fake counts
// them), marked so that a test can tell whether the model still sees it.
func longPrompt(i int) string {
	return fmt.Sprintf("MARK%02d %s", i, strings.Repeat("word ", 300))
}

// chatRequests are the conversation's requests, the summaries left out.
func chatRequests(srv *ollamatest.Server) []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range srv.Requests() {
		if !summaryAsk(&r) {
			out = append(out, r)
		}
	}
	return out
}

// sees reports whether a request carries text in any message.
func sees(req api.ChatRequest, text string) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

// compactOptions are a session's options with a 4k context and a log.
func compactOptions(t *testing.T) session.Options {
	return session.Options{Model: "tiny", Options: map[string]any{"num_ctx": 4096}, LogDir: t.TempDir(),
		ID: "20261201-100000-c0mpac"}
}

// TestAutoCompactionAtTheThreshold: a 4k context filled by a long chat is
// compacted once, before the turn after the one whose prompt passed 80 %;
// that turn's request carries the summary and the last turns, not the
// older messages, and fits; the log keeps every message, and a resume
// sends what the compacted session sent.
func TestAutoCompactionAtTheThreshold(t *testing.T) {
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	srv.Answer(summaryAsk, ollamatest.TextTurn("SUMMARY: the person sent long lists of words."))
	o := compactOptions(t)
	s := newSession(t, srv, o)
	r := newReader(t, s)
	var compactions []*session.CompactionEvent
	firedAt := 0
	for i := 1; i <= 16 && (firedAt == 0 || i <= firedAt+2); i++ {
		send(t, s, longPrompt(i))
		evs := r.turn()
		if d := done(t, evs); d.Reason != session.ReasonStop {
			t.Fatalf("turn %d ended %q: %s", i, d.Reason, kinds(evs))
		}
		for _, c := range of[*session.CompactionEvent](evs) {
			compactions = append(compactions, c)
			if c.Step == session.CompactDone {
				firedAt = i
			}
		}
		if n := ctxNotices(evs); len(n) != 0 {
			t.Fatalf("turn %d: the context overflowed before a compaction: %q", i, n)
		}
	}
	if firedAt == 0 {
		t.Fatalf("no compaction in 16 turns of a 4k context; last context %+v", s.Context())
	}
	if len(compactions) != 2 || compactions[0].Step != session.CompactStarted || !compactions[0].Auto {
		t.Fatalf("want one automatic compaction (started, done), got %+v", compactions)
	}
	c := compactions[1]
	if c.Summary != "SUMMARY: the person sent long lists of words." || c.After >= c.Before || c.Before*100 < 4096*80 {
		t.Errorf("compaction %+v: want the summary, and the prompt from over 80%% to smaller", c)
	}
	reqs := chatRequests(srv)
	after := reqs[firedAt-1] // the request of the turn the compaction came before
	if !sees(after, "SUMMARY: the person") || sees(after, "MARK01") || !sees(after, fmt.Sprintf("MARK%02d", firedAt)) ||
		!sees(after, fmt.Sprintf("MARK%02d", firedAt-1)) {
		t.Errorf("the request after the compaction: want the summary and the last 2 turns, not the first")
	}
	if msgs := after.Messages; msgs[0].Role != "user" || !strings.HasPrefix(msgs[0].Content, "[Summary of the earlier conversation") {
		t.Errorf("the summary does not open the request: %+v", msgs[0])
	}
	// The log keeps every message.
	s.Close()
	evs, _, err := session.LoadLog(logFile(o.LogDir, o.ID))
	if err != nil {
		t.Fatal(err)
	}
	users := 0
	for _, m := range of[*session.MessageEvent](evs) {
		if m.Role == "user" {
			users++
		}
	}
	if last := firedAt + 2; users != last {
		t.Errorf("the log holds %d user messages, want all %d", users, last)
	}
	// A resume sends the compacted view.
	s2, _, err := session.Resume(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "tiny", Options: o.Options}, o.LogDir, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Close)
	r2 := newReader(t, s2)
	send(t, s2, "and now?")
	r2.turn()
	reqs = chatRequests(srv)
	resumed := reqs[len(reqs)-1]
	if !sees(resumed, "SUMMARY: the person") || sees(resumed, "MARK01") || !sees(resumed, "and now?") {
		t.Errorf("the resumed session's request: want the summary, not the compacted messages")
	}
	// So does a fork.
	f, _, err := session.Fork(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "tiny", Options: o.Options}, o.LogDir, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	rf := newReader(t, f)
	send(t, f, "in the fork")
	rf.turn()
	reqs = chatRequests(srv)
	if forked := reqs[len(reqs)-1]; !sees(forked, "SUMMARY: the person") || sees(forked, "MARK01") || !sees(forked, "and now?") {
		t.Errorf("the fork's request: want the summary and what followed it, not the compacted messages")
	}
}

// TestFailedSummaryChangesNothing: a summary that fails (an error, an
// empty answer, cut at the length limit, a broken stream) says why, and
// the next request carries the whole conversation.
func TestFailedSummaryChangesNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		turn ollamatest.Turn
		why  string
	}{
		{"error", ollamatest.Turn{Status: http.StatusInternalServerError, Error: "model runner has unexpectedly stopped"},
			"model runner has unexpectedly stopped"},
		{"empty", ollamatest.TextTurn("  \n"), "summary was empty"},
		{"length", ollamatest.Turn{Chunks: ollamatest.Tokens("SUMMARY cut"), DoneReason: "length"}, `done_reason "length"`},
		{"cut", ollamatest.Turn{Chunks: ollamatest.Tokens("SUMMARY broken"), CutAfter: 1}, "broke off"},
		{"longer", ollamatest.TextTurn("SUMMARY " + strings.Repeat("and so on ", 200)), "no shorter than what it would replace"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			srv.SetDefault(ollamatest.TextTurn("ok"))
			srv.Answer(summaryAsk, tt.turn)
			s := newSession(t, srv, compactOptions(t))
			r := newReader(t, s)
			for i := 1; i <= 4; i++ {
				send(t, s, fmt.Sprintf("MARK%02d short", i))
				r.turn()
			}
			if err := s.Compact(""); err != nil {
				t.Fatal(err)
			}
			evs := r.until(func(e session.Event) bool {
				c, ok := e.(*session.CompactionEvent)
				return ok && c.Step != session.CompactStarted
			})
			c := evs[len(evs)-1].(*session.CompactionEvent)
			if c.Step != session.CompactFailed || !strings.Contains(c.Reason, tt.why) || c.Summary != "" {
				t.Errorf("compaction ended %q (%q), want failed saying %q", c.Step, c.Reason, tt.why)
			}
			send(t, s, "next")
			r.turn()
			reqs := chatRequests(srv)
			last := reqs[len(reqs)-1]
			for i := 1; i <= 4; i++ {
				if !sees(last, fmt.Sprintf("MARK%02d", i)) {
					t.Errorf("the request after a failed summary lacks turn %d", i)
				}
			}
			if sees(last, "Summary of the earlier") || sees(last, "SUMMARY") {
				t.Errorf("the request after a failed summary carries one")
			}
		})
	}
}

// TestCompactFocusAndUncompact: /compact FOCUS asks for it; /uncompact
// gives the model the whole conversation again when it fits, and says
// so, changing nothing, when it does not.
func TestCompactFocusAndUncompact(t *testing.T) {
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	srv.Answer(summaryAsk, ollamatest.TextTurn("SUMMARY short"))
	s := newSession(t, srv, session.Options{Model: "tiny"})
	r := newReader(t, s)
	for i := 1; i <= 5; i++ {
		send(t, s, longPrompt(i))
		r.turn()
	}
	if err := s.Compact("the word counts"); err != nil {
		t.Fatal(err)
	}
	r.until(func(e session.Event) bool {
		c, ok := e.(*session.CompactionEvent)
		return ok && c.Step == session.CompactDone
	})
	var ask api.ChatRequest
	for _, q := range srv.Requests() {
		if summaryAsk(&q) {
			ask = q
		}
	}
	if !sees(ask, "Keep above all what concerns: the word counts") || !sees(ask, "MARK01") || sees(ask, "MARK05") {
		t.Errorf("the summary request: want the focus and the older turns only")
	}
	if c := s.Context(); c.Regained <= 0 {
		t.Errorf("the context does not show the space regained: %+v", c)
	}
	if _, err := s.SetNumCtx(bounded(t), 512); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Uncompact(); err == nil || !strings.Contains(err.Error(), "more than the context of 512") {
		t.Errorf("uncompact over the context: %v", err)
	}
	if _, err := s.SetNumCtx(bounded(t), 8192); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Uncompact(); err != nil || res.Messages == 0 {
		t.Fatalf("uncompact: %+v, %v", res, err)
	}
	send(t, s, "all of it")
	r.turn()
	reqs := chatRequests(srv)
	if last := reqs[len(reqs)-1]; !sees(last, "MARK01") || sees(last, "SUMMARY short") {
		t.Errorf("after /uncompact the request should carry the whole conversation, without the summary")
	}
}

// TestEscCancelsTheCompactionNotTheTurn: cancelling an automatic
// compaction lets the turn go on with the whole conversation.
func TestEscCancelsTheCompactionNotTheTurn(t *testing.T) {
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	slow := ollamatest.TextTurn(strings.Repeat("summary ", 400))
	slow.Delay = 5 * 1e6 // 5ms a token: long enough to be cancelled
	srv.Answer(summaryAsk, slow)
	// Ollama may cut: the turn Esc lets go on uncompacted does not fit.
	s := newSession(t, srv, session.Options{Model: "tiny", Truncate: true, Options: map[string]any{"num_ctx": 2048}})
	r := newReader(t, s)
	for i := 1; ; i++ {
		if i > 10 {
			t.Fatal("no compaction started")
		}
		send(t, s, longPrompt(i))
		evs := r.until(func(e session.Event) bool {
			c, ok := e.(*session.CompactionEvent)
			_, end := e.(*session.TurnDone)
			return end || ok && c.Step == session.CompactStarted
		})
		if _, end := evs[len(evs)-1].(*session.TurnDone); end {
			continue
		}
		if !s.CancelCompaction() {
			t.Fatal("CancelCompaction found nothing running")
		}
		evs = r.turn()
		if d := done(t, evs); d.Reason != session.ReasonStop {
			t.Errorf("the turn ended %q, want it to go on: %s", d.Reason, kinds(evs))
		}
		c := one[*session.CompactionEvent](t, evs)
		if c.Step != session.CompactCancelled || !strings.Contains(c.Reason, "goes on with the whole conversation") {
			t.Errorf("compaction ended %+v", c)
		}
		reqs := chatRequests(srv)
		if last := reqs[len(reqs)-1]; !sees(last, "MARK01") {
			t.Errorf("the turn after a cancelled compaction lacks the first message")
		}
		return
	}
}

// TestCompactionResumedAfterARestoredResult: a resume that gives the
// model a tool result the log held but not the model's copy of it (a
// crash between the two) adds a message the log does not have; a
// compaction after it still resumes with the cut where it was (at the
// person's message, not one message later).
func TestCompactionResumedAfterARestoredResult(t *testing.T) {
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	srv.Answer(summaryAsk, ollamatest.TextTurn("SUMMARY of the call"))
	dir, id := t.TempDir(), "20261201-110000-r3st0r"
	h := func(typ string) session.Header { return session.Header{Type: typ, SessionID: id} }
	eventtest.WriteEditedLog(t, logFile(dir, id), []session.Event{
		&session.SessionStarted{Header: h(session.TypeSessionStarted), Model: "tiny"},
		&session.UserMessage{Header: h(session.TypeUserMessage), Turn: 1, Text: "MARK01 read it"},
		&session.MessageEvent{Header: h(session.TypeMessage), Turn: 1, Role: "user", Content: "MARK01 read it"},
		&session.MessageEvent{Header: h(session.TypeMessage), Turn: 1, Role: "assistant", ToolCalls: []session.ToolCallRecord{
			{ID: "call_r3st0r01", Function: session.ToolCallRecordFunc{Name: "fs__read", Arguments: map[string]any{}}}}},
		&session.ToolResultEvent{Header: h(session.TypeToolResult), Turn: 1, CallID: "call_r3st0r01", Tool: "fs__read",
			OK: true, Content: "the file's text"},
	})
	o := session.Options{Client: srv.Client(), Host: srv.Host(), Model: "tiny"}
	s, _, err := session.Resume(o, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	r := newReader(t, s)
	for i := 2; i <= 4; i++ {
		send(t, s, longPrompt(i))
		r.turn()
	}
	if err := s.Compact(""); err != nil {
		t.Fatal(err)
	}
	r.until(func(e session.Event) bool {
		c, ok := e.(*session.CompactionEvent)
		return ok && c.Step == session.CompactDone
	})
	s.Close()
	s2, _, err := session.Resume(o, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Close)
	r2 := newReader(t, s2)
	send(t, s2, "MARK05")
	r2.turn()
	reqs := chatRequests(srv)
	last := reqs[len(reqs)-1]
	if !sees(last, "SUMMARY of the call") || sees(last, "MARK02") || !sees(last, "MARK03") || !sees(last, "MARK04") {
		var got []string
		for _, m := range last.Messages {
			got = append(got, fmt.Sprintf("%s: %.30q", m.Role, m.Content))
		}
		t.Errorf("after the resume, want the summary then turns 3 and 4 whole; got %q", got)
	}
	// The lost answer holds no later compaction back.
	send(t, s2, longPrompt(6))
	r2.turn()
	if err := s2.Compact(""); err != nil {
		t.Fatalf("a compaction after the resume: %v", err)
	}
}

// TestAutoCompactionBeforeAMessageThatWouldNotFit: a chat well under the
// threshold, then a message that fits the context only once the older
// turns are compacted: latch compacts first, and Ollama takes the message
// (it would refuse it, too long, with the whole conversation).
func TestAutoCompactionBeforeAMessageThatWouldNotFit(t *testing.T) {
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	srv.Answer(summaryAsk, ollamatest.TextTurn("SUMMARY: five long lists of words."))
	s := newSession(t, srv, compactOptions(t))
	r := newReader(t, s)
	for i := 1; i <= 5; i++ {
		send(t, s, longPrompt(i))
		if evs := r.turn(); len(of[*session.CompactionEvent](evs)) != 0 {
			t.Fatalf("turn %d: compacted under the threshold: %s", i, kinds(evs))
		}
	}
	send(t, s, "BIG "+strings.Repeat("word ", 2700))
	evs := r.turn()
	if d := done(t, evs); d.Reason != session.ReasonStop || d.Unsent {
		t.Fatalf("the big message: turn ended %q (unsent %v): %s", d.Reason, d.Unsent, kinds(evs))
	}
	cs := of[*session.CompactionEvent](evs)
	if len(cs) != 2 || !cs[0].Auto || cs[1].Step != session.CompactDone {
		t.Fatalf("want one automatic compaction before the message, got %+v", cs)
	}
	reqs := chatRequests(srv)
	if last := reqs[len(reqs)-1]; !sees(last, "SUMMARY: five") || !sees(last, "BIG word") || sees(last, "MARK01") {
		t.Errorf("the big message's request: want the summary and the message, not turn 1")
	}
}
