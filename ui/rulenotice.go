package ui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/ui/sanitize"
)

// The approval box says, before the person decides, when a rule of the
// moment denies its call (a deny rule added to the config since the call
// was asked or parked, by hand or by another latch's A step): approving
// it will refuse it. The check reads the config, so it runs in a command:
// when a box comes to the front, then every ruleCheckEvery while it stays
// there. Only the front box is checked: a queue of boxes (a client's many
// calls) costs one check at a time.

// ruleCheckEvery is how often the front box checks its call again.
const ruleCheckEvery = 2 * time.Second

// ruleWatch is the one chain of checks, for the front box's call.
type ruleWatch struct {
	front string // the call checked
	gen   int    // the chain's number: a message of an older chain is dropped
}

// ruleNoticeMsg is what the rules of the moment say of a box's call.
type ruleNoticeMsg struct {
	gen    int
	callID string
	text   string // "" when no rule denies it
}

// watchFrontRules starts checking the front box's call when the front
// box changed.
func (m *Model) watchFrontRules() tea.Cmd {
	front := ""
	if m.modal != nil {
		front = m.modal.card.callID
	}
	if front == m.rules.front {
		return nil
	}
	m.rules.front = front
	m.rules.gen++
	if front == "" {
		return nil
	}
	return m.checkRules(m.rules.gen, front, 0)
}

// checkRules asks, after wait, whether a rule of the moment denies callID.
func (m *Model) checkRules(gen int, callID string, wait time.Duration) tea.Cmd {
	asks := m.asks
	check := func() tea.Msg { return ruleNoticeMsg{gen: gen, callID: callID, text: asks.ApprovalNotice(callID)} }
	if wait <= 0 {
		return check
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return check() })
}

// handleRuleNotice puts the notice on the front box, and checks again
// later while the box stays in front.
func (m *Model) handleRuleNotice(msg ruleNoticeMsg) tea.Cmd {
	if msg.gen != m.rules.gen || m.modal == nil || m.modal.card.callID != msg.callID {
		return nil
	}
	if m.modal.notice != msg.text {
		m.modal.notice = msg.text
		m.dirty = true
	}
	return m.checkRules(msg.gen, msg.callID, ruleCheckEvery)
}

// noticeLines are the box's lines above the arguments, wrapped to width;
// "" without a notice.
func (md *modal) noticeLines(m *Model, width int) string {
	if md.notice == "" {
		return ""
	}
	var b strings.Builder
	head := "rule    "
	for _, l := range wrapLine(sanitize.Line(md.notice), width-len(head), "") {
		b.WriteString(m.st.Chat.Error.Render(head+l) + "\n")
		head = "        "
	}
	return b.String()
}
