package session

import (
	"fmt"
	"strconv"
	"strings"
)

// Compaction steps, in CompactionEvent.Step.
const (
	CompactStarted   = "started"   // the model is writing the summary
	CompactDone      = "done"      // the summary replaces the older messages for the model
	CompactFailed    = "failed"    // nothing changed; Reason says why
	CompactCancelled = "cancelled" // Esc: nothing changed
	CompactUndone    = "undone"    // /uncompact: the full history is sent again
)

// CompactionEvent is a step of a compaction (/compact, or automatic when
// the last prompt passed ollama.compact_at of the context), or its undoing
// (/uncompact). The log keeps every message; a "done" step records which
// of them the model no longer sees and what it sees instead: the first
// Messages messages of the conversation since the last /clear (turns
// FirstTurn to LastTurn) are replaced by Summary. A resume restores that
// view (see compact.go).
type CompactionEvent struct {
	Header
	Step string `json:"step"`
	// Auto: started because the context passed the threshold, before
	// turn Turn; UsedPct is how full the context was (percent).
	Auto    bool `json:"auto,omitempty"`
	Turn    int  `json:"turn,omitempty"`
	UsedPct int  `json:"used_pct,omitempty"`
	// Focus is the text given to /compact, if any.
	Focus string `json:"focus,omitempty"`
	// Messages is how many messages, from the first, the summary replaces;
	// FirstTurn and LastTurn the turns they belong to.
	Messages  int `json:"messages"`
	FirstTurn int `json:"first_turn,omitempty"`
	// Prompts is how many of the person's messages are among them: the
	// replaced part ends right before the next one. A resume finds the
	// cut by it (a message restored by a resume, but not logged, would
	// shift an index).
	Prompts  int `json:"prompts,omitempty"`
	LastTurn int `json:"last_turn,omitempty"`
	// Summary is the model's summary (done).
	Summary string `json:"summary,omitempty"`
	// Before and After are the estimated sizes of the prompt, in tokens,
	// with the older messages and with the summary in their place (done).
	Before int `json:"before,omitempty"`
	After  int `json:"after,omitempty"`
	// Reason says why a compaction failed.
	Reason string `json:"reason,omitempty"`
}

// CompactionDelta is a piece of the summary as the model writes it
// (never logged: the done step holds the whole summary).
type CompactionDelta struct {
	Header
	Text string `json:"text"`
}

// Line says what the step is, in one line: what is being summarized and,
// for an automatic compaction, why and that Esc cancels only it; once
// over, what it did or why it did nothing. The screen's card and -p's
// stderr both show it (from a display-safe copy: see Display).
func (e *CompactionEvent) Line() string {
	what := fmt.Sprintf("turns %s (%d messages)", turnSpan(e.FirstTurn, e.LastTurn), e.Messages)
	switch e.Step {
	case CompactStarted:
		if e.Auto {
			return fmt.Sprintf("⟳ the context is %d %% full: compacting %s into a summary before this turn · "+
				"esc cancels the compaction, not your message", e.UsedPct, what)
		}
		focus := ""
		if e.Focus != "" {
			focus = ", keeping above all: " + e.Focus
		}
		return fmt.Sprintf("⟳ compacting %s into a summary%s · the last %d turns stay as they are · esc cancels",
			what, focus, CompactKeepTurns)
	case CompactDone:
		return fmt.Sprintf("▣ compacted %s: the model now sees this summary in their place · "+
			"prompt ~%s → ~%s tokens (%s regained) · the log keeps every message · /uncompact brings them back",
			what, ShortTokens(e.Before), ShortTokens(e.After), ShortTokens(max(e.Before-e.After, 0)))
	case CompactCancelled:
		return "⏹ compaction cancelled: nothing changed; " + e.Reason
	case CompactUndone:
		return fmt.Sprintf("uncompacted: from the next turn the model sees the whole conversation again "+
			"(%d messages in place of the summary)", e.Messages)
	}
	return "✗ compaction failed, nothing changed: " + e.Reason
}

// turnSpan writes a range of turns: "3", "1–9".
func turnSpan(first, last int) string {
	if first >= last {
		return fmt.Sprint(last)
	}
	return fmt.Sprintf("%d–%d", first, last)
}

// ShortTokens writes a token count short, as the status line's meter
// does: 999, 1k, 1.2k, 40k (k is 1024).
func ShortTokens(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	k := float64(n) / 1024
	if k < 9.95 {
		s := strconv.FormatFloat(k, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + "k"
	}
	return strconv.Itoa(int(k+0.5)) + "k"
}
