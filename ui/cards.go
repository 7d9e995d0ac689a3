package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

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
	client    string // the MCP client that made the call through latch --serve; "" for the model's
	server    string
	tool      string
	args      map[string]any
	readOnly  bool
	destroys  bool
	unsaid    bool // destroys only by the spec's default: the server gave no hint
	fromText  bool // the model wrote the call as text; latch recovered it
	state     cardState
	approval  string // the approval id while parked
	reason    string // why it was denied, or the error
	by        string // "policy" or "user"
	rule      string // the argument rule that decided, "" when none did
	decided   string // the last permission decision: allowed, denied, asked, parked
	why       string // and its reason, and who made it, for /why
	whyBy     string
	started   time.Time
	duration  time.Duration
	progress  float64
	total     float64
	progMsg   string
	task      *cardTask // the call runs as a task on its server (taskcard.go)
	preview   string
	size      int
	isError   bool
	cancelled bool
	frame     int // the spinner's frame while running
	clock     func() time.Time
	replayed  bool // drawn from a resumed session's log, not yet seen live
	inDoubt   bool // in the resumed session's calls in doubt: /retry or /dismiss it
	dismissed bool // the user dismissed it: the model is told its outcome is unknown

	// resources are the URIs the result links to or embeds (resources.go).
	resources []string

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

// layout draws the card at width: its head line (state and tool), then in
// a box its arguments, progress, denial or error, and result preview.
func (c *card) layout(st *themes.Styles, width int, expand bool) []string {
	head := c.headline(c.clock())
	style := c.headStyle(st)
	out := &cardLines{lines: []string{""}, inner: width - 4}
	for _, l := range plainLines(head, width) {
		out.lines = append(out.lines, style.Render(l))
	}
	c.addArgs(out, st, width)
	if c.rule != "" && c.state != cardDenied { // a denial's reason names it
		out.add("by rule: "+sanitize.Line(c.rule), st.Chat.Notice.Render)
	}
	c.addTask(out, st)
	if c.state == cardRunning && c.total > 0 {
		out.add(progressBar(c.progress, c.total, min(out.inner-12, 40))+" "+sanitize.Line(c.progMsg), st.Chat.Notice.Render)
	}
	if c.reason != "" && (c.state == cardDenied || c.state == cardError) {
		out.add(sanitizeText(c.reason), st.Chat.Error.Render)
	}
	if c.state == cardDone && c.preview != "" {
		c.addPreview(out, st, expand)
	}
	c.addResources(out, st)
	return out.lines
}

// cardLines are a card's lines as they are made; the box's lines are
// wrapped at inner.
type cardLines struct {
	lines []string
	inner int
}

// add puts text in the box, styled by s.
func (b *cardLines) add(text string, s func(...string) string) {
	for _, l := range plainLines(text, b.inner) {
		b.lines = append(b.lines, "  │ "+s(strings.TrimPrefix(l, margin)))
	}
}

// headline is the card's first line: icon, tool, hints and state. A call
// the model wrote as text says so ("· from text").
func (c *card) headline(now time.Time) string {
	icon, state := c.stateText(now)
	hint := ""
	switch {
	case c.readOnly:
		hint = " · read-only"
	case c.destroys && c.unsaid:
		hint = " · may change data"
	case c.destroys:
		hint = " · destructive"
	}
	if c.fromText {
		hint += " · from text"
	}
	if c.client != "" {
		hint += " · from " + sanitize.Line(c.client) + " (via latch serve)"
	}
	return fmt.Sprintf("%s %s%s — %s", icon, sanitize.Line(c.tool), hint, state)
}

// stateText is the icon and words of the card's state.
func (c *card) stateText(now time.Time) (icon, state string) {
	switch c.state {
	case cardRequested:
		return "○", "requested"
	case cardAsking:
		return "?", "waiting for your answer (y/n/a)"
	case cardParked:
		id := sanitize.Line(c.approval)
		return "⏸", fmt.Sprintf("waiting for approval %s: /approve %s or /reject %s", id, id, id)
	case cardRunning:
		return spinnerFrames[c.frame%len(spinnerFrames)], "running " + now.Sub(c.started).Truncate(100*time.Millisecond).String()
	case cardDone:
		if c.isError {
			return "✗", "the tool reported an error (" + c.duration.Truncate(time.Millisecond).String() + ")"
		}
		return "✓", "done in " + c.duration.Truncate(time.Millisecond).String()
	case cardDenied:
		return "⛔", "denied by " + c.by
	case cardError:
		if c.cancelled {
			return "⏹", "cancelled"
		}
		return "✗", "failed"
	case cardUnknown:
		return "⚠", c.unknownText()
	}
	return "", ""
}

// unknownText is the state of a call whose outcome is unknown, with what
// the user can still do about it.
func (c *card) unknownText() string {
	state := "outcome unknown: latch stopped while it ran"
	switch id := sanitize.Line(c.callID); {
	case c.task != nil && !c.inDoubt && !c.dismissed:
		state = "latch stopped while it ran as a task: the task is polled again"
	case c.dismissed:
		state = "outcome unknown · dismissed: the model is told so"
	case c.inDoubt:
		state += fmt.Sprintf(" · /retry %s or /dismiss %s", id, id)
	}
	return state
}

// headStyle colours the head line: failures as errors, calls waiting for
// the user (or in doubt) as busy.
func (c *card) headStyle(st *themes.Styles) lipgloss.Style {
	switch c.state {
	case cardDenied, cardError:
		return st.Chat.Error
	case cardAsking, cardParked, cardUnknown:
		return st.Status.Busy.UnsetBackground()
	}
	return st.Chat.Notice
}

// addArgs puts the arguments in the box. A running card keeps their lines
// for its width: it is laid out again on every frame of its spinner.
func (c *card) addArgs(out *cardLines, st *themes.Styles, width int) {
	switch {
	case c.state != cardRunning:
		c.argsLines = nil
		out.add(prettyArgs(c.args), st.Chat.Notice.Render)
	case c.argsLines == nil || c.argsWidth != width:
		n := len(out.lines)
		out.add(prettyArgs(c.args), st.Chat.Notice.Render)
		c.argsLines, c.argsWidth = out.lines[n:len(out.lines):len(out.lines)], width
	default:
		out.lines = append(out.lines, c.argsLines...)
	}
}

// addPreview puts the start of the result in the box (more of it when
// expanded), and says how much more there is.
func (c *card) addPreview(out *cardLines, st *themes.Styles, expand bool) {
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
	out.add(strings.Join(pl, "\n"), st.Chat.Assistant.Render)
	if more != "" {
		out.add(more, st.Chat.Footer.Render)
	}
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
	shown := true
	switch e := ev.(type) {
	case *session.ToolCallEvent:
		m.onToolCall(e)
	case *session.PermissionEvent:
		shown = m.onPermission(e)
	case *session.ApprovalParkedEvent:
		m.onParked(e)
	case *session.ApprovalResolvedEvent:
		m.pending = max(m.pending-1, 0)
		m.closeModal(e.CallID)
	case *session.ToolProgress:
		if en := m.cardFor(e.CallID); en != nil {
			en.card.progress, en.card.total, en.card.progMsg = e.Progress, e.Total, e.Message
			en.invalidate()
		}
	case *session.ToolResultEvent:
		shown = m.onToolResult(e)
	case *session.ToolTaskEvent:
		shown = m.onTask(e)
	}
	if shown {
		m.chat.dirty = true
		m.dirty = true
	}
}

// onToolCall adds a call's card, or takes over the one a resumed
// session's log drew for it.
func (m *Model) onToolCall(e *session.ToolCallEvent) {
	m.reply = nil // text after the call is a new reply
	if en := m.cardFor(e.CallID); en != nil && en.card.replayed && !m.replaying && !en.card.settled() {
		// A resumed session goes on with a call its log showed
		// unfinished (in doubt, asked, parked): it is that call, so its
		// card is settled in place rather than drawn twice.
		c := en.card
		c.server, c.tool, c.args, c.readOnly, c.destroys, c.unsaid = e.Server, e.Tool, e.Arguments, e.ReadOnly, e.Destructive, e.Unsaid
		c.fromText = c.fromText || e.FromText
		c.argsLines = nil
		c.replayed, c.inDoubt, c.reason = false, false, ""
		if c.state != cardParked {
			c.state = cardRequested
		}
		en.invalidate()
		return
	}
	c := &card{callID: e.CallID, client: e.Client, server: e.Server, tool: e.Tool, args: e.Arguments,
		readOnly: e.ReadOnly, destroys: e.Destructive, unsaid: e.Unsaid, fromText: e.FromText, clock: m.now, replayed: m.replaying}
	m.cards[e.CallID] = m.chat.add(&entry{kind: toolEntry, turn: e.Turn, card: c})
}

// onPermission shows the gate's decision on a call: asked (the modal
// opens), parked, denied or allowed (it runs). It reports whether the
// call has a card.
func (m *Model) onPermission(e *session.PermissionEvent) bool {
	en := m.cardFor(e.CallID)
	if en == nil {
		return false
	}
	c := en.card
	if e.Rule != "" {
		c.rule = e.Rule
	}
	c.decided, c.why, c.whyBy = e.Decision, e.Reason, e.By
	switch e.Decision {
	case "asked":
		c.state = cardAsking
		if !m.replaying {
			m.openModal(c, "")
		}
	case "parked":
		c.state = cardParked
		m.closeModal(c.callID) // a client's asked call parks when no one answers in time
	case "denied":
		c.state, c.reason, c.by = cardDenied, e.Reason, e.By
		m.closeModal(c.callID)
	case "allowed":
		c.state, c.started = cardRunning, m.now()
		m.closeModal(c.callID)
	}
	en.invalidate()
	return true
}

// onParked shows a call waiting for /approve, and counts it. A model's
// call opens the approval box: its turn waits. A client's call (latch
// --serve) is said in the chat instead: its client does not wait, and a
// box for each of a client's many calls would stand in front of the chat.
func (m *Model) onParked(e *session.ApprovalParkedEvent) {
	m.pending++
	en := m.cardFor(e.CallID)
	if en == nil {
		return
	}
	en.card.approval = e.ApprovalID
	en.card.state = cardParked
	en.invalidate()
	switch {
	case m.replaying:
	case e.Client != "":
		if m.notify != nil {
			m.notify(e.Tool)
		}
		m.addNotice(fmt.Sprintf("%s (via latch serve): its call of %s waits as approval %s — /approve %s or /reject %s",
			sanitize.Line(e.Client), sanitize.Line(e.Tool), e.ApprovalID, e.ApprovalID, e.ApprovalID))
	default:
		m.openModal(en.card, e.ApprovalID)
	}
}

// onToolResult shows how a call ended. It reports whether the call has a
// card.
func (m *Model) onToolResult(e *session.ToolResultEvent) bool {
	en := m.cardFor(e.CallID)
	if en == nil {
		return false
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
		c.resources = e.Resources
	}
	m.closeModal(c.callID)
	en.invalidate()
	return true
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
	m.markInDoubt(inDoubt)
}

// markInDoubt marks the cards of calls in doubt, which the session can
// /retry or /dismiss; one without a card (its event was not logged) gets
// one.
func (m *Model) markInDoubt(inDoubt []session.InDoubt) {
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
