package ui

import (
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
	if m.queueCommand(strings.TrimSpace("/compact " + strings.Join(args, " "))) {
		return nil // it runs when the turn ends (queuecmd.go)
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
	if m.queueCommand("/uncompact") {
		return nil // it runs when the turn ends (queuecmd.go)
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
			cp.card, cp.head, cp.summary = m.chat.add(&entry{kind: noticeEntry}), e.Line(), ""
			if m.replaying { // its end, if any, follows in the log
				cp.head = "⏹ a compaction latch stopped in (nothing changed): " + cp.head
			}
			cp.running = !m.replaying
			cp.manual = cp.running && !e.Auto
			if cp.manual {
				m.running = true
			}
			m.chat.gotoBottom()
		case session.CompactUndone:
			m.addNotice(e.Line())
			return
		default:
			if cp.card == nil { // its start was not seen
				cp.card = m.chat.add(&entry{kind: noticeEntry})
			}
			cp.head, cp.summary = e.Line(), e.Summary
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

// compactedMeter is the context meter after a compaction, until the next
// reply's counts: the estimate of the next prompt, and what was regained.
func compactedMeter(st *themes.Styles, c session.ContextInfo) string {
	text := "ctx ~" + kTokens(c.Next)
	if c.NumCtx > 0 {
		text += "/" + kTokens(c.NumCtx)
	}
	return st.Status.Item.Render(text + " ↓" + kTokens(c.Regained) + " compacted")
}
