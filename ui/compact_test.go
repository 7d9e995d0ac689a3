package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// summaryAsk picks latch's request for a compaction's summary.
var summaryAsk = ollamatest.LastUserHas("Summarize the conversation above")

// longPrompt is a prompt of about 300 tokens (as the fake counts them).
func longPrompt(i int) string {
	return fmt.Sprintf("MARK%02d %s", i, strings.Repeat("word ", 300))
}

// compactionStep picks a compaction event of step.
func compactionStep(step string) func(session.Event) bool {
	return func(e session.Event) bool {
		c, ok := e.(*session.CompactionEvent)
		return ok && c.Step == step
	}
}

// TestGoldenCompactionCard: a long chat in a 4k context is compacted on
// its own before the turn after the one that passed 80 %: the card says
// so in one line, then holds the summary and the space regained, as
// drawn; the turn goes on.
func TestGoldenCompactionCard(t *testing.T) {
	h := newHarness(t, 80, 30)
	h.srv.SetDefault(ollamatest.TextTurn("ok"))
	h.srv.Answer(summaryAsk, ollamatest.TextTurn("The person sent long lists of the word *word*, numbered MARK01 to MARK10."))
	h.runSlash("/context 4096")
	for i := 1; entriesWith(h.m, "compacted turns") == ""; i++ {
		if i > 16 {
			t.Fatalf("no compaction in 16 turns:\n%s", allText(h.m))
		}
		h.send(longPrompt(i))
	}
	card := entriesWith(h.m, "compacted turns")
	for _, want := range []string{"regained", "/uncompact", "MARK01 to MARK10"} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	if h.m.running || h.m.cp.running {
		t.Errorf("the turn after the compaction did not end the running state")
	}
	golden.RequireEqual(t, []byte(card))
}

// TestCompactCommandCardAndMeter: /compact FOCUS streams the summary into
// its card, holds what is typed meanwhile, and the meter shows the space
// regained until the next reply.
func TestCompactCommandCardAndMeter(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.srv.SetDefault(ollamatest.TextTurn("ok"))
	h.srv.Answer(summaryAsk, ollamatest.Turn{Chunks: ollamatest.Tokens("SUMMARY of five turns."), Delay: 20 * time.Millisecond})
	for i := 1; i <= 5; i++ {
		h.send(longPrompt(i))
	}
	h.typeText("/compact the word counts")
	h.key(tea.KeyEnter)
	h.untilEvent(func(e session.Event) bool { _, ok := e.(*session.CompactionDelta); return ok })
	if card := entriesWith(h.m, "compacting turns 1–3"); !strings.Contains(card, "keeping above all: the word counts") {
		t.Errorf("the card while compacting:\n%s", allText(h.m))
	}
	// The held message goes when the compaction ends; its reply waits
	// until Esc, so that the meter read below is the compaction's, not
	// that reply's counts.
	h.srv.SetDefault(ollamatest.Turn{Chunks: ollamatest.Tokens("late"), Delay: time.Hour})
	h.typeText("after the summary")
	h.key(tea.KeyEnter)
	if len(h.m.queued) != 1 {
		t.Fatalf("a message typed during /compact was not held: queued %q", h.m.queued)
	}
	h.untilEvent(compactionStep(session.CompactDone))
	if card := entriesWith(h.m, "compacted turns 1–3"); !strings.Contains(card, "SUMMARY of five turns.") {
		t.Errorf("the card once done:\n%s", allText(h.m))
	}
	if status := ansiStrip(h.m.statusLine()); !strings.Contains(status, "compacted") || !strings.Contains(status, "↓") {
		t.Errorf("the meter does not show the space regained: %q", status)
	}
	if report := contextReport(h.m.models.Context()); !strings.Contains(report, "compacted: the first 6 messages are a summary") {
		t.Errorf("/context does not say what is compacted:\n%s", report)
	}
	mcptestutil.WaitFor(t, 10*time.Second, "the held message's request", func() bool {
		reqs := h.srv.Requests()
		last := reqs[len(reqs)-1].Messages
		return strings.Contains(last[len(last)-1].Content, "after the summary")
	})
	reqs := h.srv.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last.Messages[0].Content, "SUMMARY of five turns.") {
		t.Errorf("the held message's request: %+v", last.Messages[0])
	}
	h.untilEvent(func(e session.Event) bool { _, ok := e.(*session.UserMessage); return ok })
	h.key(tea.KeyEsc)
	h.untilTurnDone()
}

// TestCompactEscCancelsOnlyTheCompaction: Esc during an automatic
// compaction cancels it, not the turn, which goes on with the whole
// conversation.
func TestCompactEscCancelsOnlyTheCompaction(t *testing.T) {
	// Ollama may cut: the turn Esc lets go on uncompacted does not fit.
	h := newHarnessWith(t, 80, 30, func(o *session.Options) { o.Truncate = true })
	h.srv.SetDefault(ollamatest.TextTurn("the reply"))
	h.srv.Answer(summaryAsk, ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("summary ", 400)), Delay: 5 * time.Millisecond})
	h.runSlash("/context 2048")
	for i := 1; !h.m.cp.running; i++ {
		if i > 10 {
			t.Fatalf("no compaction started:\n%s", allText(h.m))
		}
		h.typeText(longPrompt(i))
		h.key(tea.KeyEnter)
		// Alone: the compaction's end may come in the batch of its
		// start, and the model must not see it yet.
		h.untilEventAlone(func(e session.Event) bool {
			_, end := e.(*session.TurnDone)
			return end || compactionStep(session.CompactStarted)(e)
		})
	}
	if line := entriesWith(h.m, "esc cancels the compaction, not your message"); line == "" {
		t.Errorf("the automatic compaction was not said before it ran:\n%s", allText(h.m))
	}
	h.key(tea.KeyEsc)
	h.untilTurnDone()
	if card := entriesWith(h.m, "compaction cancelled"); !strings.Contains(card, "nothing changed") {
		t.Errorf("the card after Esc:\n%s", allText(h.m))
	}
	if r := h.m.chat.entries[len(h.m.chat.entries)-1]; r.kind != assistantEntry || !strings.Contains(r.text, "the reply") {
		t.Errorf("the turn did not go on after Esc:\n%s", allText(h.m))
	}
}

// TestCompactEscJustAfterItEndedLeavesTheTurn: an Esc meant for an
// automatic compaction that ended a moment before (its end not drawn yet)
// does not cancel the turn.
func TestCompactEscJustAfterItEndedLeavesTheTurn(t *testing.T) {
	h := newHarness(t, 80, 30)
	h.srv.SetDefault(ollamatest.TextTurn("ok"))
	h.srv.Answer(summaryAsk, ollamatest.TextTurn("SUMMARY"))
	h.runSlash("/context 2048")
	for i := 1; !h.m.cp.running; i++ {
		if i > 10 {
			t.Fatalf("no compaction started:\n%s", allText(h.m))
		}
		if i > 1 {
			// The turn that will be compacted before streams slowly.
			h.srv.SetDefault(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("slow ", 100)), Delay: 5 * time.Millisecond})
		}
		h.typeText(longPrompt(i))
		h.key(tea.KeyEnter)
		// Alone: the compaction's end may come in the batch of its
		// start, and the model must not see it yet.
		h.untilEventAlone(func(e session.Event) bool {
			_, end := e.(*session.TurnDone)
			return end || compactionStep(session.CompactStarted)(e)
		})
	}
	// The session is done compacting and streams the reply; the screen
	// has not seen the compaction's end yet.
	mcptestutil.WaitFor(t, 10*time.Second, "the turn's request, with the summary", func() bool {
		reqs := h.srv.Requests()
		return strings.Contains(reqs[len(reqs)-1].Messages[0].Content, "SUMMARY")
	})
	h.key(tea.KeyEsc)
	h.untilTurnDone()
	if r := h.m.chat.entries[len(h.m.chat.entries)-1]; r.kind != assistantEntry || strings.Contains(r.footer, "cancelled") {
		t.Errorf("an Esc meant for the compaction cancelled the turn:\n%s", allText(h.m))
	}
}

// TestCompactTypedMidReplyWaitsForTheTurn: /compact typed while a reply
// streams is not refused: it waits, visibly, and the compaction starts
// once the turn has ended; a message typed behind it goes after the
// compaction, with the summary. /uncompact typed mid-reply waits too.
func TestCompactTypedMidReplyWaitsForTheTurn(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.srv.SetDefault(ollamatest.TextTurn("ok"))
	h.srv.Answer(summaryAsk, ollamatest.TextTurn("SUMMARY of six turns."))
	for i := 1; i <= 5; i++ {
		h.send(longPrompt(i))
	}
	h.srv.SetDefault(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("slow ", 50)), Delay: 5 * time.Millisecond})
	h.typeText(longPrompt(6))
	h.key(tea.KeyEnter)
	h.untilEvent(func(e session.Event) bool { _, ok := e.(*session.AssistantDelta); return ok })
	h.typeText("/compact the word counts")
	h.key(tea.KeyEnter)
	h.typeText("after the summary")
	h.key(tea.KeyEnter)
	if strings.Contains(allText(h.m), "still running") || len(h.m.queued) != 2 {
		t.Fatalf("/compact mid-reply was refused or not held: queued %q\n%s", h.m.queued, allText(h.m))
	}
	if line := entriesWith(h.m, "queued (1): /compact runs when this reply ends"); line == "" {
		t.Errorf("no word that /compact waits:\n%s", allText(h.m))
	}
	var order []string
	h.untilEvent(func(e session.Event) bool {
		switch e := e.(type) {
		case *session.TurnDone:
			order = append(order, "turn done")
		case *session.CompactionEvent:
			order = append(order, e.Step)
		}
		return compactionStep(session.CompactDone)(e)
	})
	if want := []string{"turn done", session.CompactStarted, session.CompactDone}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("events %q, want %q", order, want)
	}
	h.untilTurnDone() // the message held behind it went
	reqs := h.srv.Requests()
	if ask := reqs[len(reqs)-2].Messages; !strings.Contains(ask[len(ask)-1].Content, "Keep above all what concerns: the word counts") {
		t.Errorf("the summary was not asked with the focus typed: %q", ask[len(ask)-1].Content)
	}
	if last := reqs[len(reqs)-1]; !strings.Contains(last.Messages[len(last.Messages)-1].Content, "after the summary") ||
		!strings.Contains(last.Messages[0].Content, "SUMMARY of six turns.") {
		t.Errorf("the held message's request: %+v", last.Messages[0])
	}

	h.srv.SetDefault(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("slow ", 50)), Delay: 5 * time.Millisecond})
	h.typeText("one more")
	h.key(tea.KeyEnter)
	h.untilEvent(func(e session.Event) bool { _, ok := e.(*session.AssistantDelta); return ok })
	h.typeText("/uncompact")
	h.key(tea.KeyEnter)
	h.untilEvent(func(e session.Event) bool { return compactionStep(session.CompactUndone)(e) })
	if strings.Contains(allText(h.m), "still running") {
		t.Errorf("/uncompact mid-reply was refused:\n%s", allText(h.m))
	}
}
