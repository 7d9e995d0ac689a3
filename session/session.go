// Package session holds a conversation with a model served by Ollama and its
// run loop: it streams replies through the Ollama API client and publishes
// everything that happens as typed events (see event.go) for the UI, the
// session log and --json to consume.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp"
	"latch/permissions"
	"latch/session/eventlog"
	"latch/session/history"
)

// Options configure a Session.
type Options struct {
	Client *api.Client // required
	// Raw reaches Ollama for what Client cannot read (tags.go); optional.
	Raw   RawOllama
	Host  string // the Ollama host, for messages
	Model string // may be empty: the user picks one later
	Think *bool  // sent only to models that can think
	// ThinkLevel, when set ("low", "medium", "high" or "max"), is asked of
	// a model that can think instead of Think's yes or no (think.go).
	ThinkLevel string
	// Truncate lets Ollama cut a prompt longer than the context, as it
	// does by default; without it latch asks Ollama to refuse such a
	// prompt (truncate:false) and says how to make room (context.go).
	Truncate  bool
	KeepAlive *time.Duration // nil: Ollama's default
	Options   map[string]any // model options, passed through
	ID        string         // session id; a new one when empty
	// LogDir, when set, is where the session log is written
	// (<LogDir>/<id>.jsonl); see StateDir.
	LogDir string
	// HistoryFile, when set, keeps the input history across sessions
	// (see HistoryFile and Remember); unset, it lasts the session.
	HistoryFile string
	// Servers are the MCP servers to hold for the session (StartServers
	// connects them).
	Servers []ServerConfig
	// Roots are the directories the servers are told of (roots/list),
	// absolute; nil means no roots are offered.
	Roots []string
	// Getenv reads credentials' variables (default os.Getenv).
	Getenv func(string) string
	// Held are latch's own credentials (the gateway's token): redacted,
	// and given to no server.
	Held Held
	// Policy is the permission policy from the config and flags.
	Policy permissions.Policy
	// NonInteractive means no one can answer: ask mode denies (-p).
	NonInteractive bool
	// OpenBrowser opens an MCP server's OAuth login page (nil: none can
	// be opened, as in -p); AuthDir keeps the logins (see mcp.Options).
	OpenBrowser func(ctx context.Context, url string) error
	AuthDir     string
	// MaxToolRounds limits rounds of tool calls per turn (default 25).
	MaxToolRounds int
	// NoTextToolCalls turns off running tool calls a model wrote as text
	// in its reply (config ollama.text_tool_calls: false; see textcalls.go).
	NoTextToolCalls bool

	// ModeFromFlag says Policy.Mode was given by --mode: on resume it
	// overrides the mode the session ran with (which is restored
	// otherwise), with a notice.
	ModeFromFlag bool
	// ModelIsDefault says Model is only the config's (or LATCH_MODEL's),
	// not --model's: on resume the model the session last used (its
	// start, or /model) wins over it, with a notice (resumemodel.go).
	ModelIsDefault bool

	// ServerTools are, by server, the tools (their original names) its
	// config's tools list offers to the model; a server not here offers
	// all of its tools. Calls are not limited by it (see toolbudget.go).
	ServerTools map[string][]string
	// MaxTools is the tool budget (ollama.max_tools; default
	// DefaultMaxTools): above it, each request offers the tools most
	// relevant to the conversation (see toolbudget.go).
	MaxTools int
	// EmbedModel, when set, is the Ollama model whose embeddings rank the
	// tools above MaxTools (ollama.embed_model; see embed.go); the ranking
	// by words is used without it, and when embedding fails.
	EmbedModel string

	// GrantsFile is where saved grants ("allow always") are kept (see
	// GrantsFile); "" turns them off.
	GrantsFile string

	// Gateway marks a run of latch serve: its log says so (session_started),
	// latch sessions lists it as a gateway, and the chat does not resume it
	// (ErrGatewayRun).
	Gateway bool

	// Instructions are the system prompt and project instructions, sent
	// in this order as the first system messages (see instructions.go).
	Instructions []Instruction

	// CompactAt is the share of the context the last prompt must pass
	// for an automatic compaction (ollama.compact_at; 0:
	// DefaultCompactAt); NoAutoCompact turns it off (see compact.go).
	CompactAt     float64
	NoAutoCompact bool
	// Idempotent are the servers whose effect is "idempotent": a call of
	// theirs in doubt after a crash runs again on resume, once, through
	// the gate (effects.go). Every other server's waits for a person.
	Idempotent []string

	// RulesNow reads the argument rules of the config as it is on disk
	// now; nil: the gate's rules alone. A call a person approves is
	// checked against them as the approval is acted on (recheck.go).
	RulesNow func() ([]permissions.Rule, error)

	lock *eventlog.SessionLock // taken by Resume before it read the log
}

// Session is one conversation. Its methods are safe for concurrent use.
type Session struct {
	client    *api.Client
	raw       RawOllama
	host      string
	gateway   bool // a latch serve run (Options.Gateway)
	id        string
	think     *api.ThinkValue // nil: Ollama's default (think.go)
	truncate  bool            // Options.Truncate
	keepAlive *time.Duration
	options   map[string]any
	events    Broker
	servers   *mcp.Manager          // nil without servers
	log       *eventlog.SessionLog  // nil when not logging
	logDir    string                // where the log should be ("" when not logging)
	lock      *eventlog.SessionLock // this process's claim on the session (with a log)
	gate      *permissions.Gate
	approvals *permissions.Approvals
	saved     *grantStore // saved grants; nil when off
	maxRounds int
	textCalls bool // recover tool calls written as text (see textcalls.go)
	maxTools  int  // the tool budget (toolbudget.go)
	// embedModel ranks the tools by embeddings (embed.go); "" ranks by words.
	embedModel string

	mu      sync.Mutex
	model   string
	caps    map[string][]string // capabilities by model name, from /api/show
	history []api.Message
	// unsent is the user's message of the running turn until Ollama takes
	// it (unsent.go): not in history, so one Ollama refuses is never kept.
	unsent  *api.Message
	turn    int
	cancel  context.CancelFunc    // of the running turn, nil when idle
	done    chan struct{}         // closed when the running turn ends
	asks    map[string]asked      // asked calls waiting for the user, by call id
	parked  map[string]onDecision // parked calls waiting, by approval id: what a decision does
	gw      gatewayCalls          // a gateway's parked calls, and their expiry
	quit    chan struct{}         // closed when Close begins (ends a client's asked call's wait)
	noTools map[string]bool       // models that refused tools
	// toolless: models said to be unable to use tools (noteNoTools).
	toolless map[string]bool
	// readOnlySaid: read_only mode was explained (explainReadOnly).
	readOnlySaid bool
	// offer: by server, the tools its config's tools list offers (absent:
	// all); toolsOff: servers whose tools /tools SERVER off withdrew;
	// budgetSaid: what the budget's notice was last said for; leftOut:
	// the tools the last request left out (toolbudget.go).
	offer      map[string][]string
	toolsOff   map[string]bool
	budgetSaid string
	leftOut    []Tool
	// embeds: the vectors of the ranking by embeddings (embed.go).
	embeds embedCache
	// fromText marks the calls recovered from a reply's text, by call id,
	// until their tool_call event is published.
	fromText map[string]bool

	// statusShown is when each server entered the state its last
	// published server_status shows (see WaitServers).
	statusShown map[string]time.Time

	// gwProgress: by call id, who forwards a gateway call's progress
	// (GatewayCall.Progress).
	gwProgress sync.Map

	// A resumed session: the calls its last turn still owes, decisions
	// made before the restart, and calls in doubt.
	resumed   bool
	owed      []api.ToolCall
	decided   map[string]bool // call id → approved (or allowed by the user)
	inDoubt   []InDoubt
	dismissed map[string]bool
	// resumedTasks are the calls that were running as tasks when latch
	// stopped, by call id: their task ids, polled again (calltask.go).
	resumedTasks map[string]string
	// goOn: the last turn's tool results were restored from the log but
	// the model has not seen them; Continue asks it again.
	goOn bool
	// closing: Close has begun. A call waiting for approval then stays
	// parked (unanswered in the log) for --resume, instead of being
	// answered as cancelled.
	closing bool
	// serversStarted is when StartServers ran (see WaitServers).
	serversStarted time.Time
	logErr         error

	// set is the permission settings the gate does not list (see
	// SettingsEvent); resumeNotices are said when a resumed session starts.
	set           settings
	resumeNotices []string
	// parkedDefs: what each call parked before a restart was approved
	// for, by call id (see rulePrior).
	parkedDefs map[string]parkedDef

	// cx is the context budget: num_ctx, the last reply's counts (context.go).
	cx ctxState
	// watched: the resources subscribed to this session (resources.go).
	watched watches

	// noOne: no one can answer a server's request (-p); el: the
	// elicitations waiting for the person (elicit.go).
	noOne bool
	el    elicitState

	// sampling: the servers' open sampling requests (sampling.go).
	sampling sampler

	// hist is the input history (package history).
	hist *history.Input

	// instructions open every request as system messages (instructions.go).
	instructions []Instruction

	// cp is the compaction: the model's view of the history (compact.go).
	cp compactState
	// idempotent are the servers with effect "idempotent"; retrying are
	// the calls in doubt a resume runs again on their own, by call id,
	// until each goes to the gate (effects.go).
	idempotent map[string]bool
	rulesNow   func() ([]permissions.Rule, error) // Options.RulesNow
	retrying   map[string]InDoubt
}

// New makes a session. Nothing is sent to Ollama until the first turn.
func New(o Options) *Session {
	id := o.ID
	if id == "" {
		id = NewID()
	}
	s := &Session{
		client: o.Client, host: o.Host, id: id, think: thinkValue(o.Think, o.ThinkLevel), gateway: o.Gateway,
		truncate: o.Truncate, raw: o.Raw,
		keepAlive: o.KeepAlive, options: o.Options, model: o.Model,
		caps: map[string][]string{}, gate: permissions.NewGate(o.Policy), approvals: permissions.NewApprovals(),
		maxRounds: o.MaxToolRounds, asks: map[string]asked{}, parked: map[string]onDecision{},
		quit:    make(chan struct{}),
		noTools: map[string]bool{}, toolless: map[string]bool{}, statusShown: map[string]time.Time{},
		decided: map[string]bool{}, dismissed: map[string]bool{},
		set:        settings{grants: map[string]string{}, flagAllow: o.Policy.FlagAllow},
		parkedDefs: map[string]parkedDef{},
		textCalls:  !o.NoTextToolCalls, fromText: map[string]bool{},
		maxTools: o.MaxTools, embedModel: o.EmbedModel, offer: map[string][]string{}, toolsOff: map[string]bool{},
		instructions: o.Instructions, cp: compactState{at: compactAt(o)},
		idempotent: map[string]bool{}, retrying: map[string]InDoubt{}, rulesNow: o.RulesNow,
	}
	for _, name := range o.Idempotent {
		s.idempotent[name] = true
	}
	for name, list := range o.ServerTools {
		s.offer[name] = slices.Clone(list)
	}
	if s.maxTools <= 0 {
		s.maxTools = DefaultMaxTools
	}
	if o.LogDir != "" {
		s.logDir, s.lock = o.LogDir, o.lock
		if s.lock == nil {
			s.lock, s.logErr = eventlog.LockSession(o.LogDir, id)
		}
		if s.logErr == nil {
			s.log, s.logErr = eventlog.OpenLog(o.LogDir, id)
		}
	}
	if s.maxRounds <= 0 {
		s.maxRounds = DefaultMaxToolRounds
	}
	s.gate.SetInteractive(!o.NonInteractive)
	s.noOne = o.NonInteractive
	s.saved = openGrantStore(o.GrantsFile)
	s.hist = history.Open(o.HistoryFile)
	s.gate.SetSaved(s.saved.grants())
	if len(o.Servers) > 0 {
		s.servers = mcp.New(o.Servers, mcp.Options{OnEvent: s.mcpEvent, Getenv: o.Getenv, Roots: o.Roots,
			Elicit: s.elicit, Sample: s.sample, OpenBrowser: o.OpenBrowser, AuthDir: o.AuthDir, Held: o.Held,
			NoChat: o.NonInteractive})
	}
	return s
}

// NewID returns a fresh session id: the date and 6 random hex digits.
func NewID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// ValidID reports whether id has the form of a session id: letters,
// digits, '-' and '_', not starting with '-', at most 64 characters. Ids
// latch makes (NewID) have it; nothing else names a log, so no id can
// reach outside the sessions folder ("../x", "/etc/x") or hide a control
// character.
func ValidID(id string) bool {
	if id == "" || len(id) > 64 || id[0] == '-' {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

var errBadID = errors.New("not a session id (letters, digits, - and _ only; see latch sessions)")

// LogProblem says why the session log cannot be written, or "" when it
// can (or the session keeps none). While it cannot, no tool call runs.
func (s *Session) LogProblem() string {
	switch {
	case s.logDir == "":
		return ""
	case s.log == nil:
		return s.logErr.Error()
	}
	if err := s.log.Broken(); err != nil {
		return err.Error()
	}
	return ""
}

// Start publishes session_started. Call it once subscribers are in place.
func (s *Session) Start() {
	if s.logErr != nil {
		s.publish(&Notice{Header: s.header(TypeNotice), Text: "cannot open the session log: " + s.logErr.Error() +
			" (the chat goes on, but is not saved, and no tool call runs)"})
	}
	if !s.resumed {
		s.publish(&SessionStarted{Header: s.header(TypeSessionStarted), Model: s.Model(), Host: s.host, Gateway: s.gateway})
	}
	s.noteSavedProblems()
	for _, n := range s.resumeNotices {
		s.publish(&Notice{Header: s.header(TypeNotice), Text: n})
	}
	s.publishSettings()
	s.publishInstructions()
}

// Subscribe returns a queue of every event published from now on.
func (s *Session) Subscribe() *Sub { return s.events.Subscribe() }

// ID is the session id.
func (s *Session) ID() string { return s.id }

// Host is the Ollama host the session talks to.
func (s *Session) Host() string { return s.host }

// Model is the current model name, "" when none is chosen yet.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// Running reports whether a turn is streaming.
func (s *Session) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancel != nil
}

// Send starts a turn with the user's text. The reply streams as events; Send
// returns once the resources the text names (@SERVER:URI) are read, at once
// when it names none. It fails with ErrBusy while a turn runs, ErrNoModel
// before a model is chosen, and a UserError naming the server and URI of a
// resource that cannot be read.
func (s *Session) Send(text string) error {
	s.mu.Lock()
	owed := len(s.owed) > 0
	s.mu.Unlock()
	if owed {
		why := s.Blocked()
		if why == "" {
			why = "its tool calls run as soon as the servers are connected"
		}
		return &UserError{Msg: "the last turn is not finished: " + why}
	}
	if err := s.readyToSend(); err != nil {
		return err
	}
	// Resources the text names (@SERVER:URI) are read first: one that
	// cannot be read fails the send, and nothing is sent (attach.go).
	att, err := s.attach(context.Background(), text)
	if err != nil {
		return err
	}
	turn, ctx, done, err := s.begin()
	if err != nil {
		return err
	}
	s.publish(&UserMessage{Header: s.header(TypeUserMessage), Turn: turn, Text: text})
	for _, e := range att.events {
		e.Turn = turn
		s.publish(e)
	}
	s.mu.Lock()
	s.unsent = &api.Message{Role: "user", Content: text + att.text, Images: att.images}
	s.mu.Unlock()
	go s.runTurnCompacting(ctx, turn, done) // compact.go
	return nil
}

// begin claims the session for a new turn.
func (s *Session) begin() (int, context.Context, chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return 0, nil, nil, ErrBusy
	}
	if s.model == "" {
		return 0, nil, nil, ErrNoModel
	}
	s.goOn = false // the new turn's request carries the restored results
	s.turn++
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.done = make(chan struct{})
	return s.turn, ctx, s.done, nil
}

// Cancel stops the running turn, if any. The partial reply is kept.
func (s *Session) Cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// Wait blocks until the running turn, if any, has ended.
func (s *Session) Wait() {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Clear forgets the conversation (cancelling a running turn first), and
// logs that it did: a resumed session starts from there too.
func (s *Session) Clear() {
	s.Cancel()
	s.Wait()
	s.mu.Lock()
	s.history, s.cp.view = nil, compactView{}
	s.mu.Unlock()
	s.publish(&Cleared{Header: s.header(TypeCleared)})
}

// Close cancels a running turn, closes every MCP server (a stubborn one is
// killed; this takes at most a few seconds) and ends every subscription.
func (s *Session) Close() {
	s.mu.Lock()
	if !s.closing {
		close(s.quit)
	}
	s.closing = true
	s.stopExpiry()
	s.mu.Unlock()
	s.Cancel()
	s.Wait()
	if s.servers != nil {
		s.servers.CloseAll()
	}
	if s.log != nil {
		_ = s.log.Close()
	}
	s.lock.Release()
	s.events.Close()
}

// History returns a copy of the conversation as sent to the model.
func (s *Session) History() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.history))
	for i, m := range s.history {
		out[i] = Message{Role: m.Role, Content: m.Content, Thinking: m.Thinking}
	}
	return out
}

// Message is one entry of the conversation.
type Message struct {
	Role     string // "user" or "assistant"
	Content  string
	Thinking string
}

// request builds the chat request for the current history. When think is
// configured and the model's capabilities are not known yet, it asks Ollama
// first: think goes only to models that can think.
func (s *Session) request(ctx context.Context) *api.ChatRequest {
	s.mu.Lock()
	_, known := s.caps[s.model]
	model := s.model
	s.mu.Unlock()
	if s.thinkSet() && !known {
		if show, err := s.client.Show(ctx, &api.ShowRequest{Model: model}); err == nil {
			s.mu.Lock()
			s.caps[model] = capStrings(show)
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	req := &api.ChatRequest{
		Model:    s.model,
		Messages: append(instructionMessages(s.instructions), s.conversationLocked()...),
		Options:  s.requestOptionsLocked(), // with /context's num_ctx (context.go)
	}
	if !s.truncate {
		// Refused, not cut, when it does not fit (docs/OLLAMA.md).
		req.Truncate = new(bool)
	}
	if s.keepAlive != nil {
		req.KeepAlive = &api.Duration{Duration: *s.keepAlive}
	}
	if s.think != nil && slices.Contains(s.caps[s.model], "thinking") {
		req.Think = &api.ThinkValue{Value: s.think.Value}
	}
	caps, known := s.caps[s.model]
	lacks := s.noTools[s.model] || (known && !slices.Contains(caps, "tools"))
	s.mu.Unlock()
	if s.servers != nil && lacks {
		s.noteNoTools(model)
	}
	if s.servers != nil && !lacks {
		// What is offered, within the tool budget (toolbudget.go).
		req.Tools = s.requestTools(ctx)
	}
	return req
}

func (s *Session) header(typ string) Header {
	return Header{Type: typ, Time: time.Now().UTC(), SessionID: s.id}
}

// publish logs events (synced where the session must not go on before
// they are on disk; several events given at once are one write and at
// most one sync, all or none of them logged) and hands them to every
// subscriber. It is the one way out of the session, and every credential
// the servers' manager knows is redacted from every field on the way.
func (s *Session) publish(es ...Event) {
	var lines []Event
	anySync, soon := false, false
	for i, e := range es {
		es[i] = mcp.RedactAll(s.servers, e)
		if write, sync := logged(es[i]); write {
			lines = append(lines, es[i])
			anySync = anySync || sync
			if r, ok := es[i].(*ToolResultEvent); ok && r.soon {
				soon = true
			}
		}
	}
	if s.log != nil && len(lines) > 0 {
		change, err := s.log.WriteAll(lines, anySync)
		if soon && !anySync && err == nil {
			s.log.SyncSoon()
		}
		switch change {
		case eventlog.LogBroke:
			s.events.Publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
				"cannot write the session log %s: %v (the chat goes on, unsaved; no tool call runs until the log can be written)",
				s.log.Path(), err)})
		case eventlog.LogRecovered:
			s.events.Publish(&Notice{Header: s.header(TypeNotice), Text: "the session log is written again " +
				"(what happened while it could not be is not in it)"})
		}
	}
	for _, e := range es {
		s.events.Publish(e)
	}
}

// appendHistory adds a message to the conversation and logs it. Callers
// must not hold mu.
func (s *Session) appendHistory(turn int, m api.Message) {
	s.mu.Lock()
	s.history = append(s.history, m)
	s.mu.Unlock()
	s.publish(&MessageEvent{Header: s.header(TypeMessage), Turn: turn, Role: m.Role, Content: m.Content,
		Thinking: m.Thinking, ToolCalls: recordCalls(m.ToolCalls), ToolName: m.ToolName, ToolCallID: m.ToolCallID,
		Images: m.Images})
}
