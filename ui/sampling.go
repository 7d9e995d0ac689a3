package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"latch/session"
	"latch/ui/sanitize"
)

// A server's sampling request is shown as a card in the chat as it
// happens, and, when the person decides, in a modal over it: the request
// (y lets the current model answer, n or Esc refuses), the answer as it
// streams (n or Esc stops the model), then the answer to review (y sends
// it, n or Esc refuses). Requests that arrive while one is open wait their
// turn.

// samplingAnswerer answers a sampling request's question.
// *session.Session has it.
type samplingAnswerer interface {
	AnswerSampling(requestID string, yes bool) bool
}

// samplingState is what the screen holds of sampling requests.
type samplingState struct {
	cards map[string]*sampleCard // by request id
	queue []string               // requests waiting for the modal, oldest first
	modal *sampleModal
}

// sampleCard is one request as the screen knows it, from its events
// (display-safe: they came through session.Display).
type sampleCard struct {
	id, server, mode string
	system           string
	roles, messages  []string
	maxTokens        int
	hints            []string

	step, by, reason string
	answer           string // streamed so far, then whole
	model            string
	truncated        bool
	review           bool

	entry *entry // the card in the chat
}

// sampleModal is the open question on a request.
type sampleModal struct {
	c      *sampleCard
	box    boxFocus // whether it has the keys (boxfocus.go); each question anew
	said   bool     // y was answered to the first question
	scroll int

	version     int      // bumped by every change of the request
	width, laid int      // the width and version lines were laid out for
	lines       []string // the body, wrapped
}

// The modal's stages.
const (
	stageAsk      = "ask"
	stageWaiting  = "waiting"
	stageAnswer   = "answering"
	stageReview   = "review"
	stageFinished = ""
)

// stage is what the modal asks now.
func (md *sampleModal) stage() string {
	switch c := md.c; {
	case c.step == session.SamplingAsked && md.said:
		return stageWaiting
	case c.step == session.SamplingAsked:
		return stageAsk
	case c.step == session.SamplingAllowed && c.by == "user":
		return stageAnswer
	case c.step == session.SamplingAnswered && c.review:
		return stageReview
	}
	return stageFinished
}

// handleSamplingEvent updates a request's card and modal.
func (m *Model) handleSamplingEvent(e session.Event) {
	sp := &m.sampling
	if sp.cards == nil {
		sp.cards = map[string]*sampleCard{}
	}
	switch e := e.(type) {
	case *session.SamplingDelta:
		if c := sp.cards[e.RequestID]; c != nil {
			c.answer += e.Text
			m.sampleChanged(c)
		}
	case *session.SamplingEvent:
		c := sp.cards[e.RequestID]
		if c == nil {
			c = &sampleCard{id: e.RequestID, server: e.Server, mode: e.Mode, system: e.SystemPrompt, roles: e.Roles,
				messages: e.Messages, maxTokens: e.MaxTokens, hints: e.ModelHints}
			c.entry = m.chat.add(&entry{kind: noticeEntry})
			sp.cards[e.RequestID] = c
		}
		c.step, c.by, c.reason = e.Step, e.By, e.Reason
		if e.Step == session.SamplingAnswered || e.Answer != "" {
			c.answer, c.model, c.truncated, c.review = e.Answer, e.Model, e.Truncated, e.Review
		}
		if e.Step == session.SamplingAsked && !m.replaying {
			sp.queue = append(sp.queue, c.id)
		}
		if md := sp.modal; md != nil && md.c == c && e.Step == session.SamplingAnswered {
			// A new question: shown anew, so that keys typed while the
			// model answered do not answer it.
			md.box, md.scroll = boxFocus{}, 0
		}
		m.sampleChanged(c)
		m.nextSampleModal()
	}
}

// sampleChanged redraws a request's card (and its modal).
func (m *Model) sampleChanged(c *sampleCard) {
	c.entry.text = c.cardText()
	c.entry.invalidate()
	m.chat.dirty = true
	if md := m.sampling.modal; md != nil && md.c == c {
		md.version++
	}
	m.dirty = true
}

// nextSampleModal closes a modal whose request is decided and opens the
// next waiting one.
func (m *Model) nextSampleModal() {
	sp := &m.sampling
	if sp.modal != nil && sp.modal.stage() == stageFinished {
		sp.modal = nil
		m.dirty = true
	}
	for sp.modal == nil && len(sp.queue) > 0 {
		c := sp.cards[sp.queue[0]]
		sp.queue = sp.queue[1:]
		if c != nil && c.step == session.SamplingAsked {
			sp.modal = &sampleModal{c: c}
			m.dirty = true
		}
	}
}

// handleSamplingKey answers the sampling modal once it has the keys: one
// key typed alone, once modalGuard has passed; Esc refuses.
func (m *Model) handleSamplingKey(msg tea.KeyMsg) tea.Cmd {
	md := m.sampling.modal
	m.dirty = true
	switch {
	case isText(msg), modalScroll(msg, &md.scroll):
		return nil
	case msg.Type == tea.KeyEsc:
		m.answerSample(md, false)
		return nil
	case m.boxGuarded(&md.box):
		return nil // too soon to be an answer to this question
	}
	switch {
	case isRune(msg, 'y', 'Y'):
		if st := md.stage(); st == stageAsk || st == stageReview {
			m.answerSample(md, true)
		}
	case isRune(msg, 'n', 'N'):
		m.answerSample(md, false)
	}
	return nil
}

// answerSample gives the session the person's answer. A no closes the
// modal at once; a first yes keeps it open for the answer.
func (m *Model) answerSample(md *sampleModal, yes bool) {
	if a, ok := m.asks.(samplingAnswerer); ok {
		a.AnswerSampling(md.c.id, yes)
	}
	if yes && md.stage() == stageAsk {
		md.said = true
		md.version++
		return
	}
	m.sampling.modal = nil
	m.nextSampleModal()
}

// cardText is the request's card: who asks, what, and where it stands.
func (c *sampleCard) cardText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "⇄ sampling · %s asks for model time", sanitize.Line(c.server))
	if c.mode != "" {
		fmt.Fprintf(&b, " (%s mode)", sanitize.Line(c.mode))
	}
	if c.system != "" {
		b.WriteString("\n  system: " + firstLine(c.system, 100))
	}
	if len(c.messages) > 0 {
		fmt.Fprintf(&b, "\n  %s: %s", sanitize.Line(roleAt(c.roles, 0)), firstLine(c.messages[0], 100))
		if len(c.messages) > 1 {
			fmt.Fprintf(&b, " (+%d messages)", len(c.messages)-1)
		}
	}
	if c.answer != "" {
		fmt.Fprintf(&b, "\n  answer%s: %s", modelNote(c.model), firstLine(c.answer, 200))
	}
	b.WriteString("\n  " + c.stepLine())
	return b.String()
}

// stepLine says where the request stands.
func (c *sampleCard) stepLine() string {
	why := ""
	if c.reason != "" {
		why = ": " + sanitize.Line(c.reason)
	}
	switch c.step {
	case session.SamplingAsked:
		return "? waiting for you"
	case session.SamplingAllowed:
		return "… the model answers (allowed" + why + ")"
	case session.SamplingAnswered:
		if c.review {
			return "? the answer waits for your review"
		}
		return "… answered"
	case session.SamplingSent:
		return "✓ sent to " + sanitize.Line(c.server)
	case session.SamplingDenied:
		return "⛔ denied" + why
	case session.SamplingRefused:
		return "⛔ refused" + why
	case session.SamplingFailed:
		return "✗ failed" + why
	}
	return sanitize.Line(c.step) + why
}

func modelNote(model string) string {
	if model == "" {
		return ""
	}
	return " (" + sanitize.Line(model) + ")"
}

func roleAt(roles []string, i int) string {
	if i < len(roles) && roles[i] != "" {
		return roles[i]
	}
	return "user"
}

// firstLine is the first line of s, made one line and cut at n cells.
func firstLine(s string, n int) string {
	line, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	line = sanitize.Line(line)
	if more || ansi.StringWidth(line) > n {
		return ansi.Truncate(line, n, "") + "…"
	}
	return line
}

// render draws the sampling modal for a screen of width × height.
//
// The rows left to the text are first guessed, then fewer where the key
// line or the box's note wrap onto more rows than guessed, down to one;
// on a screen where even that is too tall (50×18 while keys are ignored
// for a moment: its bottom border was cut off) the blank rows go too.
func (md *sampleModal) render(m *Model, width, height int) string {
	rows, compact := max(height-13, 3), false
	for {
		out, shown := md.renderRows(m, width, rows, compact)
		over := lipgloss.Height(out) - height
		switch {
		case over <= 0 || compact:
			return out
		case shown <= 1:
			compact = true
		default:
			rows = max(shown-over, 1)
		}
	}
}

// renderRows draws the modal with at most rows rows of its text, and says
// how many it showed; compact, without blank rows.
func (md *sampleModal) renderRows(m *Model, width, rows int, compact bool) (string, int) {
	st := m.st.Dialog
	c := md.c
	w := min(width-4, 90)
	server := sanitize.Line(c.server)
	gap := "\n"
	if compact {
		gap = ""
	}
	var b strings.Builder
	stage := md.stage()
	title := map[string]string{
		stageAsk: "Let " + server + " use the model?", stageWaiting: "Starting the model for " + server + "…",
		stageAnswer: "The model answers " + server + "…", stageReview: "Send this answer to " + server + "?",
	}[stage]
	b.WriteString(st.Title.Render(ansi.Truncate(title, w-4, "…")) + "\n" + gap)
	fmt.Fprintf(&b, "server  %s\n", server)
	limit := fmt.Sprintf("limit   %d tokens · answered by the current model", c.maxTokens)
	if c.model != "" {
		limit = fmt.Sprintf("limit   %d tokens · model %s", c.maxTokens, sanitize.Line(c.model))
	}
	b.WriteString(ansi.Truncate(limit, w-4, "…") + "\n")
	if len(c.hints) > 0 {
		b.WriteString(ansi.Truncate("wants   "+sanitize.Line(strings.Join(c.hints, ", "))+" (latch uses the current model)", w-4, "…") + "\n")
	}
	b.WriteString(gap)
	lines := md.body(w - 4)
	md.scroll = min(md.scroll, max(len(lines)-rows, 0))
	end := min(md.scroll+rows, len(lines))
	for _, l := range lines[md.scroll:end] {
		b.WriteString(ansi.Truncate(l, w-4, "…") + "\n")
	}
	if len(lines) > rows {
		fmt.Fprintf(&b, st.Hint.Render("  lines %d–%d of %d (↑/↓, PgUp/PgDn scroll)")+"\n", md.scroll+1, end, len(lines))
	}
	b.WriteString(gap + st.Hint.Render(sampleKeys(stage, server)))
	if stage == stageAsk || stage == stageReview || !md.box.focused() {
		for _, l := range m.boxNote(&md.box, w-4) {
			b.WriteString("\n" + l)
		}
	}
	return m.boxStyle(&md.box).Width(w).Render(b.String()), end - md.scroll
}

// sampleKeys is the modal's key hint at a stage.
func sampleKeys(stage, server string) string {
	switch stage {
	case stageAsk:
		return "y let the model answer (you see the answer before it is sent) · n refuse · esc refuse"
	case stageReview:
		return "y send this answer to " + server + " · n refuse · esc refuse"
	}
	return "n or esc stop the model and refuse"
}

// body is the modal's scrollable text at width: the answer (once there is
// one), the system prompt and the messages, wrapped once per change.
func (md *sampleModal) body(width int) []string {
	if md.lines != nil && md.width == width && md.laid == md.version {
		return md.lines
	}
	c := md.c
	var out []string
	section := func(title, text string) {
		out = append(out, title)
		for _, l := range strings.Split(sanitizeText(text), "\n") {
			out = append(out, wrapLine(l, width-2, "  ")...)
		}
	}
	if st := md.stage(); st == stageAnswer || st == stageReview {
		answer := c.answer
		if answer == "" {
			answer = "…"
		}
		title := "answer" + modelNote(c.model)
		if c.truncated {
			title += " — stopped at the token limit"
		}
		section(title, answer)
		out = append(out, "")
	}
	if c.system != "" {
		section("system prompt", c.system)
	}
	for i, msg := range c.messages {
		section("message "+fmt.Sprint(i+1)+" · "+sanitize.Line(roleAt(c.roles, i)), msg)
	}
	md.lines, md.width, md.laid = out, width, md.version
	return out
}
