package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// cardState is where a tool call stands, as its card shows it.
type cardState int

const (
	cardRequested cardState = iota
	cardAsking              // the y/n modal is open
	cardParked              // waiting for /approve
	cardRunning
	cardDone
	cardDenied
	cardError
	// cardUnknown is a call whose outcome is unknown: it was running when
	// latch stopped (a resumed session), and nothing runs it now.
	cardUnknown
)

// card is a tool call in the chat. It changes state in place as events
// arrive; its layout is cached until then.
type card struct {
	callID    string
	server    string
	tool      string
	args      map[string]any
	readOnly  bool
	destroys  bool
	state     cardState
	approval  string // the approval id while parked
	reason    string // why it was denied, or the error
	by        string // "policy" or "user"
	started   time.Time
	duration  time.Duration
	progress  float64
	total     float64
	progMsg   string
	preview   string
	size      int
	isError   bool
	cancelled bool
	frame     int // the spinner's frame while running
	clock     func() time.Time
	replayed  bool // drawn from a resumed session's log, not yet seen live
	inDoubt   bool // in the resumed session's calls in doubt: /retry or /dismiss it
	dismissed bool // the user dismissed it: the model is told its outcome is unknown

	// The arguments' lines, laid out for argsWidth, kept while the call
	// runs: they never change, and a running card is laid out again on
	// every frame of its spinner. (Other cards' layouts are cached whole,
	// within the chat's layout budget.)
	argsWidth int
	argsLines []string
}

// prettyArgs renders arguments as indented JSON, sanitized.
func prettyArgs(args map[string]any) string {
	if len(args) == 0 {
		return "{}"
	}
	b, err := json.MarshalIndent(args, "", "  ")
	if err != nil {
		return fmt.Sprint(args)
	}
	return sanitizeText(string(b))
}

// spinnerFrames animate a running call.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// cardPreviewLines is how much of a result a card shows.
const cardPreviewLines = 6

// cardExpandedLines is how much an expanded card shows (ctrl+o).
const cardExpandedLines = 200

// layout draws the card at width.
func (c *card) layout(st *themes.Styles, width int, expand bool) []string {
	now := c.clock()
	lines := []string{""}
	var icon, state string
	switch c.state {
	case cardRequested:
		icon, state = "○", "requested"
	case cardAsking:
		icon, state = "?", "waiting for your answer (y/n/a)"
	case cardParked:
		id := sanitize.Line(c.approval)
		icon, state = "⏸", fmt.Sprintf("waiting for approval %s: /approve %s or /reject %s", id, id, id)
	case cardRunning:
		icon = spinnerFrames[c.frame%len(spinnerFrames)]
		state = "running " + now.Sub(c.started).Truncate(100*time.Millisecond).String()
	case cardDone:
		icon, state = "✓", "done in "+c.duration.Truncate(time.Millisecond).String()
		if c.isError {
			icon, state = "✗", "the tool reported an error ("+c.duration.Truncate(time.Millisecond).String()+")"
		}
	case cardDenied:
		icon, state = "⛔", "denied by "+c.by
	case cardError:
		icon, state = "✗", "failed"
		if c.cancelled {
			icon, state = "⏹", "cancelled"
		}
	case cardUnknown:
		icon, state = "⚠", "outcome unknown: latch stopped while it ran"
		switch id := sanitize.Line(c.callID); {
		case c.dismissed:
			state = "outcome unknown · dismissed: the model is told so"
		case c.inDoubt:
			state += fmt.Sprintf(" · /retry %s or /dismiss %s", id, id)
		}
	}
	hint := ""
	switch {
	case c.readOnly:
		hint = " · read-only"
	case c.destroys:
		hint = " · destructive"
	}
	head := fmt.Sprintf("%s %s%s — %s", icon, sanitize.Line(c.tool), hint, state)
	style := st.Chat.Notice
	switch c.state {
	case cardDenied, cardError:
		style = st.Chat.Error
	case cardAsking, cardParked, cardUnknown:
		style = st.Status.Busy.UnsetBackground()
	}
	for _, l := range plainLines(head, width) {
		lines = append(lines, style.Render(l))
	}
	inner := width - 4
	add := func(text string, s func(...string) string) {
		for _, l := range plainLines(text, inner) {
			lines = append(lines, "  │ "+s(strings.TrimPrefix(l, margin)))
		}
	}
	switch {
	case c.state != cardRunning:
		c.argsLines = nil
		add(prettyArgs(c.args), st.Chat.Notice.Render)
	case c.argsLines == nil || c.argsWidth != width:
		n := len(lines)
		add(prettyArgs(c.args), st.Chat.Notice.Render)
		c.argsLines, c.argsWidth = lines[n:len(lines):len(lines)], width
	default:
		lines = append(lines, c.argsLines...)
	}
	if c.state == cardRunning && c.total > 0 {
		add(progressBar(c.progress, c.total, min(inner-12, 40))+" "+sanitize.Line(c.progMsg), st.Chat.Notice.Render)
	}
	if c.reason != "" && (c.state == cardDenied || c.state == cardError) {
		add(sanitizeText(c.reason), st.Chat.Error.Render)
	}
	if c.state == cardDone && c.preview != "" {
		pl := strings.Split(sanitizeText(c.preview), "\n")
		more := ""
		limit := cardPreviewLines
		if expand {
			limit = cardExpandedLines
		}
		if len(pl) > limit {
			more = fmt.Sprintf("… %d more lines (ctrl+o)", len(pl)-limit)
			pl = pl[:limit]
		} else if c.size > len(c.preview) {
			more = fmt.Sprintf("… %d bytes in all", c.size)
		}
		add(strings.Join(pl, "\n"), st.Chat.Assistant.Render)
		if more != "" {
			add(more, st.Chat.Footer.Render)
		}
	}
	return lines
}

// progressBar draws progress out of total in width cells.
func progressBar(p, total float64, width int) string {
	if width < 5 {
		width = 5
	}
	frac := p / total
	frac = max(0, min(frac, 1))
	full := int(frac * float64(width))
	return "[" + strings.Repeat("█", full) + strings.Repeat("░", width-full) + fmt.Sprintf("] %3.0f%%", frac*100)
}

// cardFor finds the card of a call.
func (m *Model) cardFor(callID string) *entry {
	return m.cards[callID]
}

// handleToolEvent applies tool-call events to their card.
func (m *Model) handleToolEvent(ev session.Event) {
	switch e := ev.(type) {
	case *session.ToolCallEvent:
		m.reply = nil // text after the call is a new reply
		if en := m.cardFor(e.CallID); en != nil && en.card.replayed && !m.replaying && !en.card.settled() {
			// A resumed session goes on with a call its log showed
			// unfinished (in doubt, asked, parked): it is that call, so its
			// card is settled in place rather than drawn twice.
			c := en.card
			c.server, c.tool, c.args, c.readOnly, c.destroys = e.Server, e.Tool, e.Arguments, e.ReadOnly, e.Destructive
			c.argsLines = nil
			c.replayed, c.inDoubt, c.reason = false, false, ""
			if c.state != cardParked {
				c.state = cardRequested
			}
			en.invalidate()
			break
		}
		c := &card{callID: e.CallID, server: e.Server, tool: e.Tool, args: e.Arguments,
			readOnly: e.ReadOnly, destroys: e.Destructive, clock: m.now, replayed: m.replaying}
		m.cards[e.CallID] = m.chat.add(&entry{kind: toolEntry, turn: e.Turn, card: c})
	case *session.PermissionEvent:
		en := m.cardFor(e.CallID)
		if en == nil {
			return
		}
		c := en.card
		switch e.Decision {
		case "asked":
			c.state = cardAsking
			if !m.replaying {
				m.openModal(c, "")
			}
		case "parked":
			c.state = cardParked
		case "denied":
			c.state, c.reason, c.by = cardDenied, e.Reason, e.By
			m.closeModal(c.callID)
		case "allowed":
			c.state, c.started = cardRunning, m.now()
			m.closeModal(c.callID)
		}
		en.invalidate()
	case *session.ApprovalParkedEvent:
		if en := m.cardFor(e.CallID); en != nil {
			en.card.approval = e.ApprovalID
			en.card.state = cardParked
			en.invalidate()
			if !m.replaying {
				m.openModal(en.card, e.ApprovalID)
			}
		}
		m.pending++
	case *session.ApprovalResolvedEvent:
		m.pending = max(m.pending-1, 0)
		m.closeModal(e.CallID)
	case *session.ToolProgress:
		if en := m.cardFor(e.CallID); en != nil {
			en.card.progress, en.card.total, en.card.progMsg = e.Progress, e.Total, e.Message
			en.invalidate()
		}
	case *session.ToolResultEvent:
		en := m.cardFor(e.CallID)
		if en == nil {
			return
		}
		c := en.card
		c.duration = time.Duration(e.DurationMS) * time.Millisecond
		switch {
		case e.Error != "" && c.dismissed:
			c.state = cardUnknown // the model is told its outcome is unknown
		case e.Error != "" && c.state != cardDenied:
			c.state, c.reason, c.cancelled = cardError, e.Error, e.Cancelled
		case e.Error == "":
			c.state, c.preview, c.size, c.isError = cardDone, e.Preview, e.Size, e.IsError
		}
		m.closeModal(c.callID)
		en.invalidate()
	}
	m.chat.dirty = true
	m.dirty = true
}

// settled reports whether the card's call has an outcome: done, denied or
// failed.
func (c *card) settled() bool {
	return c.state == cardDone || c.state == cardDenied || c.state == cardError
}

// settleReplayed marks the calls a resumed session's log left running as
// in doubt: nothing runs them now, so no card may spin. inDoubt lists the
// calls the session can /retry or /dismiss; one without a card (its event
// was not logged) gets one.
func (m *Model) settleReplayed(inDoubt []session.InDoubt) {
	for _, en := range m.cards {
		if en.card.state == cardRunning {
			en.card.state = cardUnknown
			en.invalidate()
		}
	}
	for _, d := range inDoubt {
		en := m.cardFor(d.CallID)
		if en == nil {
			c := &card{callID: d.CallID, server: d.Server, tool: d.Tool, args: d.Arguments, clock: m.now, replayed: true}
			en = m.chat.add(&entry{kind: toolEntry, turn: d.Turn, card: c})
			m.cards[d.CallID] = en
		}
		en.card.state, en.card.inDoubt = cardUnknown, true
		en.invalidate()
	}
	m.chat.dirty = true
}

// anyRunning reports whether a card shows a running call.
func (m *Model) anyRunning() bool {
	for _, en := range m.cards {
		if en.card.state == cardRunning {
			return true
		}
	}
	return false
}
