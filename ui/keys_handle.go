package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
)

// handleKey routes a key: Ctrl+C first (interrupt.go), then the open
// prompt, a history search (history.go), the box in front when it has
// the keys (boxfocus.go), help or picker, then the chat's keys. Tab
// takes a box that waits. Keys are matched by type (matches, isRune),
// never by the text of a burst of typed characters: that is always text.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	prev := m.lastKey
	if !m.ctrlCAt.IsZero() && !matches(msg, m.keys.Quit) {
		// Any other key after a Ctrl+C (typing, ↑, an answer) says the
		// person goes on: the next Ctrl+C clears or stops again, and
		// does not quit with what they typed since.
		m.ctrlCAt = time.Time{}
		m.dirty = true
	}
	box := m.frontBox()
	if m.pausedTab(box, prev, msg) {
		return nil
	}
	if m.menuBlocked() {
		m.closeMenu() // what is over the chat has the keys, or takes Tab
	}
	if box != nil && box.focused() && m.token == nil && !matches(msg, m.keys.Quit) {
		// An answer to a box is not typing: the next box, coming up
		// right after it, may take the keys (after its guard).
		return m.handleBoxKey(msg)
	}
	m.lastKey = m.now()
	switch {
	case matches(msg, m.keys.Quit):
		return m.ctrlC()
	case m.token != nil:
		return m.handleTokenKey(msg)
	case m.search != nil:
		return m.handleSearchKey(msg)
	case box != nil && msg.Type == tea.KeyTab:
		m.takeBox(box, prev)
		return nil
	case m.helpOpen:
		m.handleHelpKey(msg)
		return nil
	case m.copying != nil:
		return m.handleCopyKey(msg)
	case m.picker != nil:
		return m.handlePickerKey(msg)
	}
	return m.handleChatKey(msg)
}

// handleBoxKey gives a key to the box in front, which has the keys.
func (m *Model) handleBoxKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case m.modal != nil:
		return m.handleModalKey(msg)
	case len(m.forms) > 0:
		return m.handleFormKey(msg)
	}
	return m.handleSamplingKey(msg)
}

// handleHelpKey closes the overview on Esc, ? or q, and scrolls it with
// the arrows, PgUp/PgDn, Home and End; other keys do nothing.
func (m *Model) handleHelpKey(msg tea.KeyMsg) {
	m.dirty = true
	page := m.helpRows() - 1
	switch {
	case msg.Type == tea.KeyEsc || isRune(msg, '?', 'q'):
		m.helpOpen = false
	case msg.Type == tea.KeyUp || isRune(msg, 'k'):
		m.helpScroll = max(m.helpScroll-1, 0)
	case msg.Type == tea.KeyDown || isRune(msg, 'j'):
		m.helpScroll++ // helpBox keeps it in range
	case msg.Type == tea.KeyPgUp:
		m.helpScroll = max(m.helpScroll-page, 0)
	case msg.Type == tea.KeyPgDown || isRune(msg, ' '):
		m.helpScroll += page
	case msg.Type == tea.KeyHome:
		m.helpScroll = 0
	case msg.Type == tea.KeyEnd:
		m.helpScroll = len(m.helpLines())
	}
}

// handleChatKey handles a key with nothing open over the chat: the global
// keys, else the editor.
func (m *Model) handleChatKey(msg tea.KeyMsg) tea.Cmd {
	if m.menu.open && m.handleMenuKey(msg) || m.arrowOpensMenu(msg) {
		return nil
	}
	defer m.afterChatKey()
	if cmd, ok := m.viewKey(msg); ok {
		m.dirty = true
		return cmd
	}
	switch {
	case matches(msg, m.keys.Cancel):
		m.cancelInnermost()
	case matches(msg, m.keys.Help) && m.input.value() == "":
		return m.cmdHelp(nil)
	case matches(msg, m.keys.EOF) && m.input.value() == "":
		return m.quit()
	case matches(msg, m.keys.Search):
		m.startSearch()
	case matches(msg, m.keys.HistoryUp) && m.input.onFirstRow() && m.historyUp(): // an older entry
	case matches(msg, m.keys.HistoryDown) && m.input.onLastRow() && m.historyDown(): // a newer one
	case m.scrollKey(msg): // it scrolled
	case matches(msg, m.keys.Send):
		return m.submit()
	case matches(msg, m.keys.Complete) && strings.HasPrefix(m.input.value(), "/"):
		m.complete()
		return m.completeValues() // a prompt argument's values, from its server
	case matches(msg, m.keys.Complete) && m.atTyped():
		return m.completeAtKey()
	default:
		return m.edit(msg)
	}
	m.dirty = true
	return nil
}

// viewKey handles the keys that change what the screen shows, or copy
// from it, and reports whether msg was one of them.
func (m *Model) viewKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case matches(msg, m.keys.Thinking):
		m.toggleThinking()
	case matches(msg, m.keys.Expand):
		m.view.expandCards = !m.view.expandCards
		m.relayoutAll()
	case matches(msg, m.keys.Copy):
		return m.copyLast(), true
	case matches(msg, m.keys.CopyMode):
		m.openCopyMode()
	case matches(msg, m.keys.Mouse):
		return m.toggleMouse(), true
	default:
		return nil, false
	}
	return nil, true
}

// cancelInnermost is Esc: it stops the innermost thing: the queue of
// messages typed during a reply, then a running tool call (the model is
// told and goes on), else the streaming reply.
func (m *Model) cancelInnermost() {
	switch {
	case len(m.queued) > 0:
		last := m.queued[len(m.queued)-1]
		m.queued = m.queued[:len(m.queued)-1]
		if m.input.value() == "" {
			m.input.set(last)
		}
		m.addNotice("taken back from the queue")
	case m.cancelLogin():
	case m.cp.running:
		// Only the compaction, even one that ended a moment ago: this
		// Esc was meant for it, not for the turn (compact.go).
		m.compact.CancelCompaction()
	case m.sess.CancelTools():
	case m.running:
		m.sess.Cancel()
	}
}

// scrollKey scrolls the chat if msg is a scroll key, and reports whether
// it was.
func (m *Model) scrollKey(msg tea.KeyMsg) bool {
	page := max(m.chat.height-1, 1)
	switch {
	case matches(msg, m.keys.PageUp):
		m.chat.scroll(-page)
	case matches(msg, m.keys.PageDown):
		m.chat.scroll(page)
	case matches(msg, m.keys.LineUp):
		m.chat.scroll(-1)
	case matches(msg, m.keys.LineDown):
		m.chat.scroll(1)
	case matches(msg, m.keys.Bottom):
		m.chat.gotoBottom()
	default:
		return false
	}
	return true
}

// edit gives a key to the input editor, making room when it grows or
// shrinks.
func (m *Model) edit(msg tea.KeyMsg) tea.Cmd {
	before := m.input.height()
	cmd := m.input.update(asText(msg))
	if m.input.height() != before {
		m.layout()
	}
	m.dirty = true
	return cmd
}

// submit sends the input: a slash command runs here and never reaches the
// model; anything else goes to the session.
func (m *Model) submit() tea.Cmd {
	text := m.input.value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if line := strings.TrimSpace(text); strings.HasPrefix(line, "/") {
		return m.submitCommand(line)
	}
	m.held = "" // sent as it is or edited: no longer held (unsent.go)
	if m.busy() {
		// Sent while a turn runs: it waits, visibly, and goes when the
		// turn ends (Esc takes it back). So while /clear winds the
		// session down: it goes once the conversation is forgotten.
		m.queued = append(m.queued, text)
		m.remember(text)
		m.input.reset()
		m.layout()
		m.addNotice(fmt.Sprintf("queued (%d): sent when this reply ends · esc takes it back", len(m.queued)))
		return nil
	}
	if m.namesResources(text) {
		m.remember(text)
		return m.sendAttached(text) // reads the resources first (attach.go)
	}
	if err := m.sess.Send(text); err != nil {
		// Keep the text so nothing typed is lost.
		m.addError(userMessage(err))
		return nil
	}
	m.remember(text)
	m.input.reset()
	m.layout()
	m.chat.gotoBottom()
	return nil
}

// submitCommand runs a slash command typed in the input. One that fails
// at once (unknown, bad arguments, an error it reports) keeps its text in
// the input, to be fixed; one that does not is cleared and goes to the
// history.
func (m *Model) submitCommand(line string) tea.Cmd {
	errs := m.errCount
	m.input.reset()
	cmd := m.runCommand(line)
	if m.errCount > errs && m.input.value() == "" && m.token == nil {
		m.input.set(line)
	} else {
		m.remember(line)
		m.restoreHeld()
	}
	m.layout()
	return cmd
}

// sendQueued sends the oldest queued message once a turn has ended: a
// message, a server's prompt, or a command that waited for the turn
// (queuecmd.go).
func (m *Model) sendQueued() {
	if len(m.queued) == 0 || m.busy() {
		return
	}
	text := m.queued[0]
	m.queued = m.queued[1:]
	switch {
	case isPromptLine(text):
		m.later = append(m.later, m.runPromptLine(text))
		return
	case strings.HasPrefix(text, "/"): // only commands start so (submit)
		m.runQueuedCommand(text)
		return
	}
	if m.namesResources(text) {
		m.later = append(m.later, m.sendAttached(text))
		return
	}
	if err := m.sess.Send(text); err != nil {
		m.addError(userMessage(err))
		m.input.set(text) // nothing typed is lost
	}
}

// quit ends the program. The running turn is not cancelled here: closing
// the session does that, and keeps a call that waits for approval parked
// for --continue (a cancel would void it).
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	return tea.Quit
}

// complete finishes a slash command name, or its argument, on Tab. With
// several candidates it completes their common prefix and opens the menu
// above the input over them all (menu.go).
func (m *Model) complete() {
	v := m.input.value()
	hits := m.candidates(v)
	switch len(hits) {
	case 0:
		return
	case 1:
		m.takeCandidate(hits[0])
	default:
		texts := make([]string, len(hits))
		for i, h := range hits {
			texts[i] = h.text
		}
		if p := commonPrefix(texts); len(p) > len(v) {
			m.input.set(p)
		}
		m.openMenu()
	}
	m.dirty = true
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// userMessage renders an error for the chat line.
func userMessage(err error) string {
	var ue *session.UserError
	if errors.As(err, &ue) {
		return ue.Msg
	}
	return err.Error()
}
