package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/themes"
)

// Compaction is the conversation's compaction (session/compact.go):
// Compact starts one in the background, CancelCompaction stops it,
// Uncompact gives the model the whole history again. None blocks.
type Compaction interface {
	Compact(focus string) error
	CancelCompaction() bool
	Uncompact() (session.UncompactResult, error)
}

// compactUI is the compaction as the screen shows it: its card, and
// whether one runs.
type compactUI struct {
	card    *entry // the card of the compaction shown last
	head    string // the card's first line
	summary string // the summary as it streams
	running bool   // a compaction runs (Esc cancels it)
	manual  bool   // it is a /compact, not part of a turn: it holds the input like a turn
}

// cmdCompact is /compact [FOCUS]: the older part of the conversation
// summarized by the model, for the model.
func (m *Model) cmdCompact(args []string) tea.Cmd {
	if m.running || m.clearing > 0 {
		m.addError("/compact: the turn is still running; wait for it to end (or Esc), then /compact")
		return nil
	}
	if err := m.compact.Compact(strings.Join(args, " ")); err != nil {
		m.addError(userMessage(err))
	}
	return nil
}

// cmdUncompact is /uncompact: the whole conversation for the model again,
// from the next turn, when it fits (the session says so when not).
func (m *Model) cmdUncompact(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("uncompact")
		return nil
	}
	if m.running || m.clearing > 0 {
		m.addError("/uncompact: the turn is still running; wait for it to end (or Esc), then /uncompact")
		return nil
	}
	if _, err := m.compact.Uncompact(); err != nil {
		m.addError(userMessage(err))
	}
	return nil
}

// handleCompaction shows a compaction's steps: one card that says what
// is being summarized, streams the summary, and ends with the outcome.
func (m *Model) handleCompaction(e session.Event) {
	cp := &m.cp
	switch e := e.(type) {
	case *session.CompactionDelta:
		if cp.card != nil && cp.running {
			cp.summary += e.Text
			m.drawCompaction()
		}
	case *session.CompactionEvent:
		switch e.Step {
		case session.CompactStarted:
			cp.card, cp.head, cp.summary = m.chat.add(&entry{kind: noticeEntry}), compactStartLine(e), ""
			cp.running = !m.replaying
			cp.manual = cp.running && !e.Auto
			if cp.manual {
				m.running = true
			}
			m.chat.gotoBottom()
		case session.CompactUndone:
			m.addNotice(fmt.Sprintf("uncompacted: from the next turn the model sees the whole conversation again "+
				"(%d messages in place of the summary)", e.Messages))
			return
		default:
			if cp.card == nil { // its start was not seen
				cp.card = m.chat.add(&entry{kind: noticeEntry})
			}
			cp.head, cp.summary = compactEndLine(e), e.Summary
			m.endCompaction()
		}
		m.drawCompaction()
	}
}

// endCompaction lets go of what a running compaction held: a /compact
// held the input like a turn, and what was queued meanwhile goes now.
func (m *Model) endCompaction() {
	cp := &m.cp
	cp.running = false
	if cp.manual {
		cp.manual, m.running = false, false
		m.sendQueued()
	}
}

// drawCompaction redraws the compaction's card.
func (m *Model) drawCompaction() {
	cp := &m.cp
	if cp.card == nil {
		return
	}
	text := cp.head
	if s := strings.TrimSpace(cp.summary); s != "" {
		text += "\n\n" + s
	}
	cp.card.text = text
	cp.card.invalidate()
	m.chat.dirty = true
	m.dirty = true
}

// compactStartLine is the card's line while the model summarizes: what,
// and, for an automatic one, why and that Esc cancels only it.
func compactStartLine(e *session.CompactionEvent) string {
	what := fmt.Sprintf("turns %s (%d messages)", turnSpan(e.FirstTurn, e.LastTurn), e.Messages)
	if e.Auto {
		return fmt.Sprintf("⟳ the context is %d %% full: compacting %s into a summary before this turn · "+
			"esc cancels the compaction, not your message", e.UsedPct, what)
	}
	focus := ""
	if e.Focus != "" {
		focus = ", keeping above all: " + e.Focus
	}
	return fmt.Sprintf("⟳ compacting %s into a summary%s · the last %d turns stay as they are · esc cancels",
		what, focus, session.CompactKeepTurns)
}

// compactEndLine is the card's line once the compaction is over.
func compactEndLine(e *session.CompactionEvent) string {
	switch e.Step {
	case session.CompactDone:
		return fmt.Sprintf("▣ compacted turns %s (%d messages): the model now sees this summary in their place · "+
			"prompt ~%s → ~%s tokens (%s regained) · the log keeps every message · /uncompact brings them back",
			turnSpan(e.FirstTurn, e.LastTurn), e.Messages, kTokens(e.Before), kTokens(e.After), kTokens(max(e.Before-e.After, 0)))
	case session.CompactCancelled:
		return "⏹ compaction cancelled: nothing changed; " + e.Reason
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

// compactedMeter is the context meter after a compaction, until the next
// reply's counts: the estimate of the next prompt, and what was regained.
func compactedMeter(st *themes.Styles, c session.ContextInfo) string {
	text := "ctx ~" + kTokens(c.Next)
	if c.NumCtx > 0 {
		text += "/" + kTokens(c.NumCtx)
	}
	return st.Status.Item.Render(text + " ↓" + kTokens(c.Regained) + " compacted")
}
