// Package ui is latch's Bubble Tea front end: one root model that draws the
// status line, the chat and the input, runs slash commands, and turns the
// session's events into what the user sees.
package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"latch/permissions"
	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return sanitize.Line(strings.Join(xs, ", "))
}

// Options configure the UI model.
type Options struct {
	// Backend is the session; the model keeps it by concern (see Backend).
	Backend Backend
	Events  *session.Sub // the session's events, subscribed before Start
	Styles  themes.Styles
	// Resumed, when set, is a session brought back from its log: its
	// history is shown, and its unfinished turn offered to finish.
	Resumed *session.Resumed
	// DarkBackground, Getenv, ConfigHome and Profile let /theme resolve
	// names as start-up did (the background is detected before start).
	DarkBackground bool
	Getenv         func(string) string
	ConfigHome     string
	Profile        termenv.Profile
	// Theme is the name of the theme Styles were built from (the flag's,
	// the config's, or "auto"): a late answer about the background
	// (BackgroundMsg) resolves it again. Empty, late answers change no
	// theme.
	Theme string
	// Notices are shown first (e.g. a broken user theme, and the fallback).
	Notices []string
	// Now is the clock of elapsed times on tool cards (default time.Now).
	Now func() time.Time
	// Output, when set, is the terminal: the model draws its frames there
	// itself, writing only what changed (see screen), and View returns
	// nothing for Bubble Tea's renderer to draw. Without it, View returns
	// the frame.
	Output io.Writer
	// SyncOutput says the terminal knows synchronized output (DEC mode
	// 2026): each frame drawn on Output is bracketed by it.
	SyncOutput bool
	// FrameInterval batches streamed events: after a batch the next one is
	// taken no sooner than this (default 42 ms), at the first event
	// published after it (session.Sub.NextPaced: a streaming reply
	// publishes every 16 ms, so frames come about every 50 ms); a
	// negative value turns batching off.
	FrameInterval time.Duration
	// OpenURL opens a URL in the browser when the person says so (o in a
	// server's URL request), without waiting; main gives the platform's
	// opener. Without it, o says no browser can be opened.
	OpenURL func(string) error
	// Clipboard puts text on the clipboard (ctrl+y, copy mode, c in a URL
	// request; default: the terminal's, OSC 52).
	Clipboard func(string)
	// Notify tells the terminal that a client's call (latch --serve) waits
	// for a person: the bell, and a desktop notification where the
	// terminal shows one (ui/notice); given the tool's name, once per
	// call. Nil rings nothing.
	Notify func(tool string)
	// Mouse says the program captures the mouse (the wheel scrolls the
	// chat; the terminal's own selection needs Shift, or F2 to let go).
	// Off, a drag selects text as anywhere else in the terminal.
	Mouse bool
	// KeepModel writes the model as the default into the config file
	// (ctrl+s in the model picker) and returns where; main gives it.
	// Without it, ctrl+s says the model cannot be kept.
	KeepModel func(name string) (path string, err error)
	// RuleFile is the file an argument rule saved from the permission box
	// (A, then a rule) is written into, or why none can be; SaveRule
	// writes one there and returns it as the config will read it. main
	// gives both; without them, A offers the whole tool only.
	RuleFile func() (string, error)
	SaveRule func(spec permissions.RuleSpec) (permissions.Rule, error)
	// Serving, when set, says where the gateway beside the chat (latch
	// --serve) listens and how many clients hold a session with it; the
	// status line shows it. Send ServingChanged when the count changes.
	Serving func() (addr string, clients int)
	// Sources are the config files the servers were read from, one a
	// line (config.Config.Sources); /servers shows them below its table.
	Sources []string
}

// ServingChanged tells the model that Options.Serving has news: a client
// came or went.
type ServingChanged struct{}

// Model is the root Bubble Tea model.
type Model struct {
	backends // the session, by concern
	events   *session.Sub
	st       *themes.Styles
	keys     keyMap
	batch    time.Duration

	width, height int
	screen        *screen // draws the frames when Options.Output is set
	chat          *chatPane
	md            *mdRenderer
	input         inputBox
	sentText      string   // the running turn's message as sent, until it ends (unsent.go)
	held          string   // a message Ollama refused, until sent again (unsent.go)
	menu          compMenu // the completion menu over the input (menu.go)
	popupHeight   int      // rows the completion popup covers at the chat's bottom, as last drawn
	picker        *picker
	token         *tokenPrompt           // the masked /token input, when open
	login         loginState             // the /login waiting in the browser
	servers       map[string]serverState // by name, from server_status events
	cards         map[string]*entry      // tool-call cards by call id
	modal         *modal                 // the permission question, when open
	behind        []*modal               // the questions queued behind it (modalqueue.go)
	pr            promptUI               // the servers' prompts (prompts.go)
	forms         []*formModal           // servers' requests for input, first shown (elicit.go)
	openURL       func(string) error     // see Options.OpenURL
	keepModel     modelKeeper            // see Options.KeepModel
	saveRule      ruleSaver              // see Options.SaveRule
	ruleFile      string                 // see Options.RuleFile
	ruleFileErr   error                  // why no rule can be saved, from Options.RuleFile
	serving       func() (string, int)   // see Options.Serving
	sources       []string               // see Options.Sources
	clipboard     copier                 // see Options.Clipboard and clipway.go
	notify        func(string)           // see Options.Notify
	sampling      samplingState          // servers' sampling requests: cards, modal (sampling.go)
	pending       int                    // parked approvals
	replaying     bool                   // showing a resumed session's history
	queued        []string               // messages sent during a reply, sent after it
	modelNames    []string               // installed models, once listed (for completion)
	helpOpen      bool                   // the key and command overview is shown
	helpScroll    int                    // its first line shown, when it does not fit
	copying       *copyMode              // copy mode's list, when open (copymode.go)
	mouse         bool                   // the mouse is captured (see Options.Mouse)
	title         string                 // the window title last set
	themeEnv      themeEnv
	view          viewOpts
	resumed       bool
	clearing      int       // /clear commands still running: nothing is sent meanwhile
	ticking       bool      // the running-card animation is on
	modalWake     bool      // a box took the keys: wake up when its guard is over
	pauseTick     bool      // a boxPausedMsg is on its way (boxpause.go)
	lastKey       time.Time // when the last key came (m.now): is the person typing?
	spin          int       // its frame
	now           func() time.Time
	ctrlCAt       time.Time // the last Ctrl+C (m.now): a second one soon after quits (interrupt.go)
	walk          histWalk  // ↑/↓ through the input history (history.go)
	search        *histSearch
	histFailed    bool // the history file could not be written (said once)
	errCount      int  // errors added to the chat: a slash command that adds one failed

	rs        *resState // resources known for @ completion (resources_complete.go)
	attaching int       // sends reading their resources (@SERVER:URI)
	later     []tea.Cmd // commands started outside update's return, run after it
	rules     ruleWatch // the front box's check against the rules of the moment (rulenotice.go)

	running  bool
	turn     int
	reply    *entry // the reply streaming now
	lastTPS  float64
	status   statusCache // the status line last drawn (status.go)
	hint     hintCache   // the hint line last drawn (status.go)
	frame    string
	dirty    bool
	quitting bool
	forking  bool      // the chat ended for /fork (fork.go)
	cp       compactUI // the compaction's card (compact.go)
}

// frameInterval is the least time between two batches of events: a
// frame's worth, less about half the chat stream's read pace, which
// NextPaced waits for past it.
const frameInterval = 42 * time.Millisecond

// New builds the model.
func New(o Options) *Model {
	st := o.Styles
	if st.Palette.Name == "" {
		st = themes.Default()
	}
	batch := o.FrameInterval
	if batch == 0 {
		batch = frameInterval
	} else if batch < 0 {
		batch = 0
	}
	md := newMDRenderer(st.Palette.Glamour)
	m := &Model{
		backends: splitBackend(o.Backend), events: o.Events, st: &st, keys: defaultKeys(),
		batch: batch, md: md, dirty: true, cards: map[string]*entry{}, now: o.Now,
	}
	if m.now == nil {
		m.now = time.Now
	}
	if o.Output != nil {
		m.screen = newScreen(o.Output, o.SyncOutput)
	}
	m.mouse = o.Mouse
	m.keys.setMouse(m.mouse)
	m.openURL = o.OpenURL
	m.keepModel = o.KeepModel
	if o.RuleFile != nil && o.SaveRule != nil {
		m.saveRule = o.SaveRule
		m.ruleFile, m.ruleFileErr = o.RuleFile()
	}
	m.serving = o.Serving
	m.sources = o.Sources
	if m.openURL == nil {
		m.openURL = func(string) error { return errors.New("no way to open a browser here") }
	}
	m.notify = o.Notify
	clip := systemClipboard(o.Getenv, nativeClipboard, terminalClipboard)
	if o.Clipboard != nil {
		clip = surely(o.Clipboard)
	}
	m.clipboard = clipboardDoor(clip)
	m.chat = newChatPane(m.st, md, &m.view)
	m.input = newInputBox(m.st)
	m.themeEnv = themeEnv{dark: o.DarkBackground, getenv: o.Getenv, configHome: o.ConfigHome, profile: o.Profile, follow: o.Theme}
	for _, n := range o.Notices {
		m.addNotice(n)
	}
	if o.Resumed != nil {
		m.replay(o.Resumed)
	}
	m.resumed = o.Resumed != nil
	return m
}

// replay shows a resumed session's history, then what it still owes.
func (m *Model) replay(r *session.Resumed) {
	m.replaying = true
	for _, e := range r.Events {
		switch e.(type) {
		case *session.ServerStatusEvent, *session.Error, *session.SessionStarted:
			continue // old news: the servers reconnect now
		}
		m.handleEvent(e)
	}
	m.replaying = false
	m.settleReplayed(r.InDoubt)
	m.running, m.reply, m.modal, m.behind = false, nil, nil, nil
	m.addNotice("── resumed ──")
	for _, w := range r.Warnings {
		m.addNotice("warning: " + w)
	}
	for _, d := range r.InDoubt {
		m.addError(fmt.Sprintf("call %s (%s) was running when latch stopped: its outcome is unknown, and it is not run again on its own. /retry %s runs it again through the gate; /dismiss %s tells the model",
			d.CallID, sanitize.Line(d.Tool), d.CallID, d.CallID))
	}
	for _, d := range r.Retrying {
		m.addNotice(fmt.Sprintf("call %s (%s) was running when latch stopped: its server, %s, is idempotent: it runs again once the servers are connected, through the gate",
			d.CallID, sanitize.Line(d.Tool), sanitize.Line(d.Server)))
	}
	for _, ap := range r.Pending {
		m.addNotice(fmt.Sprintf("approval %s waits: %s — /approve %s or /reject %s", ap.ID, sanitize.Line(ap.Name), ap.ID, ap.ID))
	}
	m.pending = len(r.Pending)
}

// continuedMsg says whether a resumed turn went on once servers were up.
type continuedMsg struct{ started bool }

// continueResumed waits for the servers, then lets a resumed turn that
// owes tool calls go on when nothing blocks it.
func (m *Model) continueResumed() tea.Cmd {
	srv, resume := m.srv, m.resume
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		srv.WaitServers(ctx)
		return continuedMsg{started: resume.Continue()}
	}
}

// handleContinued notes a resumed turn that went on; one that did not
// may have calls in doubt it did not have at first (a retry held back:
// its server is not connected), whose cards now say how to settle them.
func (m *Model) handleContinued(msg continuedMsg) {
	if msg.started {
		m.running = true
	} else {
		m.markInDoubt(m.resume.InDoubtCalls())
	}
	m.dirty = true
}

// Init starts reading events and, when no model is set, asks Ollama which
// models there are so the user can pick one.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.waitEvents(time.Time{})}
	if m.resumed {
		cmds = append(cmds, m.continueResumed())
	}
	if m.models.Model() == "" {
		cmds = append(cmds, m.listModels(true))
	} else {
		cmds = append(cmds, m.probe())
	}
	return tea.Batch(cmds...)
}

// eventsMsg carries every session event that was queued at once.
type eventsMsg struct {
	events []session.Event
	at     time.Time
}

// eventsClosedMsg says the session ended its event stream.
type eventsClosedMsg struct{}

// waitEvents is the re-arming command that drains the session's queue. It
// waits until at least one frame interval passed since the last batch, so
// a fast stream is shown in batches instead of one redraw per token.
func (m *Model) waitEvents(last time.Time) tea.Cmd {
	sub, batch := m.events, m.batch
	if sub == nil {
		return nil
	}
	return func() tea.Msg {
		evs, ok := sub.NextPaced(context.Background(), last, batch)
		if !ok {
			return eventsClosedMsg{}
		}
		return eventsMsg{events: evs, at: time.Now()}
	}
}

// Update handles one message, then keeps the window title in step with
// what latch is doing.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	if len(m.later) > 0 {
		cmd = tea.Batch(append([]tea.Cmd{cmd}, m.later...)...)
		m.later = nil
	}
	m.showFront()
	m.takeIfPaused(m.frontBox(), m.lastKey)
	cmd = tea.Batch(cmd, m.watchFrontRules(), m.pauseWake())
	if m.modalWake {
		m.modalWake = false
		cmd = tea.Batch(cmd, tea.Tick(modalGuard, func(time.Time) tea.Msg { return modalReadyMsg{} }))
	}
	if t := m.windowTitle(); t != m.title && !m.quitting {
		m.title = t
		cmd = tea.Batch(cmd, tea.SetWindowTitle(t))
	}
	return m, cmd
}

// windowTitle says the state: streaming, waiting for you, idle.
func (m *Model) windowTitle() string {
	switch {
	case m.modal != nil || m.sampling.modal != nil || m.pending > 0 || len(m.forms) > 0:
		return "latch · waiting for you"
	case m.running:
		return "latch · working"
	}
	return "latch"
}

// update hands each message to its handler. Nothing here waits: what
// blocks (Ollama, the servers, the end of a turn) runs in a command, whose
// message comes back here.
func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		m.screenResized(msg)
	case tea.ResumeMsg:
		m.screenResumed()
	case SyncOutputMsg:
		m.screenSync(bool(msg))
	case BackgroundMsg:
		m.lateBackground(bool(msg))
	case eventsMsg:
		return m, m.handleEvents(msg)
	case eventsClosedMsg:
	case tickMsg:
		return m, m.handleTick()
	case modalReadyMsg, quitWindowOverMsg, ServingChanged:
		m.dirty = true
	case boxPausedMsg:
		m.pauseTick = false
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case tea.MouseMsg:
		m.handleMouse(msg)
	case copiedMsg:
		m.addNotice(copiedNotice(msg))
	case continuedMsg:
		m.handleContinued(msg)
	case clearedMsg:
		m.handleCleared()
	case approvalDoneMsg:
		m.handleApprovalDone(msg)
	case ruleSavedMsg:
		m.handleRuleSaved(msg)
	case modelsMsg:
		m.handleModels(msg)
	case modelSetMsg:
		return m, m.handleModelSet(msg)
	case probeMsg:
		return m, m.handleProbe(msg)
	case contextSetMsg:
		m.handleContextSet(msg)
	case serverDoneMsg:
		m.handleServerDone(msg)
	case cmdDoneMsg:
		m.handleCmdDone(msg)
	default:
		return m, m.updateServerExtras(msg)
	}
	return m, nil
}

// updateServerExtras handles what the servers' commands beyond tools
// bring back: logins, prompts, resources and attachments.
func (m *Model) updateServerExtras(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loginDoneMsg:
		m.handleLoginDone(msg)
	case promptRanMsg:
		m.handlePromptRan(msg)
	case promptValuesMsg:
		m.handlePromptValues(msg)
	case resourcesMsg:
		m.handleResources(msg)
	case resListMsg:
		return m.handleResList(msg)
	case resCompMsg:
		return m.handleResComp(msg)
	case attachSentMsg:
		m.handleAttachSent(msg)
	case ruleNoticeMsg:
		return m.handleRuleNotice(msg)
	}
	return nil
}

// handleEvents applies a batch of session events, then waits for the next.
func (m *Model) handleEvents(msg eventsMsg) tea.Cmd {
	for _, e := range msg.events {
		m.handleEvent(e)
	}
	return tea.Batch(m.waitEvents(msg.at), m.maybeTick())
}

func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	m.input.setWidth(w)
	m.layout()
	if m.picker != nil {
		m.picker.dirty = true
	}
}

// layout gives the chat what the status line and input leave over.
func (m *Model) layout() {
	chatH := m.height - 1 - 1 - m.input.height()
	m.chat.setSize(m.width, max(chatH, 0))
	m.dirty = true
}

// handleEvent applies one session event to the screen. Every event comes
// in here, live or replayed from a log, and is made display-safe first
// (session.Display): nothing in the UI holds text from outside that could
// drive the terminal.
func (m *Model) handleEvent(e session.Event) {
	switch e := session.Display(e).(type) {
	case *session.UserMessage:
		m.turn = e.Turn
		m.sentText = e.Text
		m.running = true
		m.reply = nil
		m.chat.add(&entry{kind: userEntry, turn: e.Turn, text: e.Text})
	case *session.ThinkingDelta:
		m.replyFor(e.Turn, e.Round).addThinking(m.st, m.md, e.Text, m.chat.width)
		m.chat.dirty = true
	case *session.AssistantDelta:
		m.running = !m.replaying
		m.replyFor(e.Turn, e.Round).addContent(m.md, e.Text, m.chat.width)
		m.chat.dirty = true
	case *session.AssistantMessage:
		m.replyFor(e.Turn, e.Round).finish(e.Content, e.Thinking, e.Partial)
		m.chat.dirty = true
	case *session.ToolCallEvent, *session.PermissionEvent, *session.ApprovalParkedEvent,
		*session.ApprovalResolvedEvent, *session.ToolProgress, *session.ToolResultEvent, *session.ToolTaskEvent:
		m.handleToolEvent(e)
	case *session.Notice:
		m.addNotice(e.Text)
	case *session.CallRetriedEvent:
		m.addNotice(e.Text())
	case *session.Cleared:
		if m.replaying { // live, /clear empties the chat itself (handleCleared)
			m.chat.clear()
		}
	case *session.Error:
		m.addError(e.Message)
	case *session.TurnDone:
		if e.Turn == m.turn {
			m.endTurn(e)
		}
	case *session.ServerStatusEvent:
		m.handleServerStatus(e)
		m.refreshPrompts()
		delete(m.resCache().lists, e.Server)
	case *session.PromptsChangedEvent:
		m.onPromptsChanged(e)
	case *session.PromptEvent:
		m.onPromptEvent(e)
	case *session.AttachmentEvent, *session.ResourceUpdatedEvent, *session.ResourcesChangedEvent:
		m.handleResourceEvent(e)
	case *session.LoginURLEvent:
		m.handleLoginURL(e)
	case *session.ToolsChangedEvent:
		if len(e.Changed) > 0 || len(e.Removed) > 0 {
			m.addNotice(fmt.Sprintf("%s: tool list changed (%d tools; changed: %s; removed: %s)",
				sanitize.Line(e.Server), e.Tools, listOrNone(e.Changed), listOrNone(e.Removed)))
		}
	case *session.ElicitationEvent, *session.ElicitationAnswerEvent:
		m.handleElicitEvent(e)
	case *session.SamplingEvent, *session.SamplingDelta:
		m.handleSamplingEvent(e)
	case *session.CompactionEvent, *session.CompactionDelta:
		m.handleCompaction(e)
	case *session.ModelChanged:
	}
	m.dirty = true
}

// endTurn closes the current turn: its reply gets its footer, and the
// next queued message goes.
func (m *Model) endTurn(e *session.TurnDone) {
	m.running = false
	m.lastTPS = e.Metrics.TokensPerSecond()
	if r := m.reply; r != nil {
		r.footer = footerFor(e)
		if !r.done {
			r.finish(r.text, r.thinking, true)
		}
		r.invalidate()
	}
	m.reply = nil
	// The turn's questions are over; a client's (latch --serve) are not
	// the turn's.
	m.dropModals(func(md *modal) bool { return md.card.client == "" })
	m.chat.dirty = true
	switch {
	case m.replaying:
	case e.Unsent:
		m.giveBack(e)
	default:
		m.sentText = ""
		m.sendQueued()
	}
}

// replyFor returns the streaming reply of a turn's round, making it on
// first use.
func (m *Model) replyFor(turn, round int) *entry {
	if m.reply == nil || m.reply.turn != turn || m.reply.round != round {
		m.reply = m.chat.add(&entry{kind: assistantEntry, turn: turn, round: round})
	}
	return m.reply
}

func footerFor(e *session.TurnDone) string {
	switch e.Reason {
	case session.ReasonCancelled:
		return "⏹ cancelled"
	case session.ReasonCutOff:
		return "✂ cut off"
	case session.ReasonLength:
		return "… stopped at the length limit (num_predict)"
	}
	return ""
}

func (m *Model) addNotice(text string) {
	m.chat.add(&entry{kind: noticeEntry, text: text})
	m.chat.gotoBottom()
	m.dirty = true
}

func (m *Model) addError(text string) {
	m.errCount++
	m.chat.add(&entry{kind: errorEntry, text: text})
	m.chat.gotoBottom()
	m.dirty = true
}

func (m *Model) handleMouse(msg tea.MouseMsg) {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.chat.scroll(-3)
	case tea.MouseButtonWheelDown:
		m.chat.scroll(3)
	default:
		return
	}
	m.dirty = true
}

// View draws the screen. It is called after every message, so it returns
// the cached frame unless something changed.
func (m *Model) View() string {
	if m.quitting || m.width == 0 {
		return ""
	}
	if m.screen != nil {
		// Drawn here, on the event loop, changing only what changed;
		// Bubble Tea's renderer gets nothing to draw.
		// The chat rows under the completion popup are not scrolled
		// with the rest: the popup stays where it is. (render, first,
		// says how tall the popup is.)
		frame := m.render()
		m.screen.draw(frame, [2]int{1, m.chat.height - m.popupHeight})
		return ""
	}
	return m.render()
}

// overModal reports whether a box over the chat waits for the person (an
// asked call, a form, a sampling request): the frame is drawn afresh.
func (m *Model) overModal() bool {
	return m.modal != nil || m.sampling.modal != nil || len(m.forms) > 0
}

// render is the frame: the status line, the chat (with whatever is open
// over it), the hint line and the input.
func (m *Model) render() string {
	if !m.dirty && !m.chat.dirty && !m.input.dirty && m.token == nil && !m.overModal() && !m.helpOpen && m.copying == nil && (m.picker == nil || !m.picker.dirty) {
		return m.frame
	}
	m.dirty = false
	var sb strings.Builder
	sb.WriteString(m.statusLine())
	sb.WriteByte('\n')
	body := m.chat.render()
	if m.picker != nil {
		body = overlay(body, m.picker.render(m.st, m.width, m.chat.height), m.width)
	}
	if m.modal != nil {
		body = overlay(body, m.modal.render(m, m.width, m.chat.height), m.width)
	} else if len(m.forms) > 0 {
		body = overlay(body, m.forms[0].render(m, m.width, m.chat.height), m.width)
	} else if md := m.sampling.modal; md != nil {
		body = overlay(body, md.render(m, m.width, m.chat.height), m.width)
	}
	if m.helpOpen {
		body = overlay(body, m.helpBox(), m.width)
	}
	m.popupHeight = 0
	if m.copying != nil {
		box := m.copyBox()
		body = overlayAt(body, box, 1, max(m.chat.height-lipgloss.Height(box), 0))
	}
	if pop := m.completionPopup(); pop != "" {
		m.popupHeight = min(lipgloss.Height(pop), m.chat.height)
		body = coverRows(body, pop, m.chat.height-m.popupHeight)
	}
	sb.WriteString(body)
	sb.WriteByte('\n')
	sb.WriteString(m.hintLine())
	sb.WriteByte('\n')
	if m.token != nil {
		sb.WriteString(m.token.in.View())
	} else {
		sb.WriteString(m.input.render())
	}
	m.frame = sb.String()
	return m.frame
}
