package ui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/ui/sanitize"
)

// An approval box says, before the person decides, when a rule of the
// moment denies its call (a deny rule added to the config since the call
// was asked or parked, by hand or by another latch's A step): approving
// it will refuse it. The check reads the config, so it runs in a command,
// when the box opens and every ruleCheckEvery while it is shown.

// ruleCheckEvery is how often a shown box checks its call again.
const ruleCheckEvery = 2 * time.Second

// ruleNoticeMsg is what the rules of the moment say of a box's call.
type ruleNoticeMsg struct {
	callID string
	text   string // "" when no rule denies it
}

// checkRules asks, after wait, whether a rule of the moment denies callID.
func (m *Model) checkRules(callID string, wait time.Duration) tea.Cmd {
	asks := m.asks
	check := func() tea.Msg { return ruleNoticeMsg{callID: callID, text: asks.ApprovalNotice(callID)} }
	if wait <= 0 {
		return check
	}
	return tea.Tick(wait, func(time.Time) tea.Msg { return check() })
}

// handleRuleNotice puts the notice on the call's box, and checks again
// later while the box is shown.
func (m *Model) handleRuleNotice(msg ruleNoticeMsg) tea.Cmd {
	shown := false
	for _, md := range m.allModals() {
		if md.card.callID != msg.callID {
			continue
		}
		shown = true
		if md.notice != msg.text {
			md.notice = msg.text
			m.dirty = true
		}
	}
	if !shown {
		return nil
	}
	return m.checkRules(msg.callID, ruleCheckEvery)
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
