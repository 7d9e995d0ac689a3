package session

import (
	"sort"
	"time"
)

// Event type names, as they appear in the "type" field on the wire (the
// session log and --json). Scripts depend on them: see docs/SESSIONS.md ("Sessions on disk").
const (
	TypeSessionStarted   = "session_started"
	TypeUserMessage      = "user_message"
	TypeAssistantDelta   = "assistant_delta"
	TypeThinkingDelta    = "thinking_delta"
	TypeAssistantMessage = "assistant_message"
	TypeTurnDone         = "turn_done"
	TypeModelChanged     = "model_changed"
	TypeCleared          = "cleared"
	TypeError            = "error"
	TypeCompaction       = "compaction"
	TypeCompactionDelta  = "compaction_delta"
)

// SessionStarted opens a session.
type SessionStarted struct {
	Header
	Model string `json:"model"`
	Host  string `json:"host"`
	// Gateway: the session is a run of latch serve, not a chat.
	Gateway bool `json:"gateway,omitempty"`
	// Fork: the session was forked from another (/fork, --fork ID).
	Fork *ForkPoint `json:"fork,omitempty"`
}

// UserMessage is a prompt the user sent, starting turn Turn.
type UserMessage struct {
	Header
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

// AssistantDelta is a piece of the reply's content as it streams. Round
// counts the model's replies within a turn: each round of tool calls
// starts a new one.
type AssistantDelta struct {
	Header
	Turn  int    `json:"turn"`
	Round int    `json:"round"`
	Text  string `json:"text"`
}

// ThinkingDelta is a piece of the model's thinking trace as it streams.
type ThinkingDelta struct {
	Header
	Turn  int    `json:"turn"`
	Round int    `json:"round"`
	Text  string `json:"text"`
}

// AssistantMessage is the finished (or interrupted) reply of a turn.
type AssistantMessage struct {
	Header
	Turn     int    `json:"turn"`
	Round    int    `json:"round"`
	Content  string `json:"content"`
	Thinking string `json:"thinking,omitempty"`
	// Partial is set when the reply did not finish: it was cancelled, cut
	// off or broken by an error. The text is what arrived.
	Partial bool `json:"partial,omitempty"`
	// Written is the reply as the model wrote it when it wrote tool calls
	// as text (textcalls.go): Content is then the prose around them, the
	// calls their own tool_call events (from_text).
	Written string `json:"written,omitempty"`
}

// Turn end reasons, in TurnDone.Reason.
const (
	ReasonStop      = "stop"       // the model finished
	ReasonLength    = "length"     // the model hit num_predict
	ReasonCancelled = "cancelled"  // the user cancelled
	ReasonCutOff    = "cut_off"    // the stream ended without its final line
	ReasonError     = "error"      // Ollama or the connection failed
	ReasonToolLimit = "tool_limit" // the per-turn limit of tool rounds stopped it
)

// TurnDone ends a turn.
type TurnDone struct {
	Header
	Turn    int     `json:"turn"`
	Reason  string  `json:"reason"`
	Metrics Metrics `json:"metrics"`
	// Unsent: Ollama refused the request with the user's message (too
	// long for the context, …) before any reply, and the message is not
	// in the conversation; the screen gives it back to the input
	// (unsent.go).
	Unsent bool `json:"unsent,omitempty"`
	// TooLong: Unsent, because the prompt was too long for the context
	// (room can be made; a refused think level or an Ollama not running
	// needs something else).
	TooLong bool `json:"too_long,omitempty"`
}

// Metrics are Ollama's figures for a reply.
type Metrics struct {
	PromptTokens   int           `json:"prompt_eval_count,omitempty"`
	EvalTokens     int           `json:"eval_count,omitempty"`
	EvalDuration   time.Duration `json:"eval_duration,omitempty"`
	TotalDuration  time.Duration `json:"total_duration,omitempty"`
	LoadDuration   time.Duration `json:"load_duration,omitempty"`
	PromptDuration time.Duration `json:"prompt_eval_duration,omitempty"`
}

// TokensPerSecond is the generation speed, 0 when unknown.
func (m Metrics) TokensPerSecond() float64 {
	if m.EvalTokens == 0 || m.EvalDuration <= 0 {
		return 0
	}
	return float64(m.EvalTokens) / m.EvalDuration.Seconds()
}

// Cleared says the conversation was started afresh (/clear): what came
// before it is no longer sent to the model, after a resume too.
type Cleared struct {
	Header
}

// ModelChanged says which model the session now talks to.
type ModelChanged struct {
	Header
	Model string `json:"model"`
}

// Error is a failure the user should see, as one line.
type Error struct {
	Header
	Turn    int    `json:"turn,omitempty"`
	Message string `json:"message"`
}

// Event types of MCP servers.
const (
	TypeServerStatus = "server_status"
	TypeToolsChanged = "tools_changed"
	TypeToolProgress = "tool_progress"
	// TypePromptsChanged and TypePrompt are of prompts (prompts.go).
	TypePromptsChanged = "prompts_changed"
	TypePrompt         = "prompt"
)

// ServerStatusEvent reports that an MCP server changed state. Failures carry
// the reason, a stdio server's exit status and the tail of its stderr.
type ServerStatusEvent struct {
	Header
	Server          string   `json:"server"`
	State           string   `json:"state"`
	Summary         string   `json:"summary"`
	Reason          string   `json:"reason,omitempty"`
	Transport       string   `json:"transport"`
	Tools           int      `json:"tools"`
	ProtocolVersion string   `json:"protocol_version,omitempty"`
	ExitStatus      string   `json:"exit_status,omitempty"`
	StderrTail      []string `json:"stderr_tail,omitempty"`
}

// ToolsChangedEvent reports a refreshed tool list. Changed names tools
// whose definition changed; Removed, tools that are gone.
type ToolsChangedEvent struct {
	Header
	Server  string   `json:"server"`
	Tools   int      `json:"tools"`
	Changed []string `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// ToolProgress is a progress notification of a running tool call.
type ToolProgress struct {
	Header
	Server   string  `json:"server"`
	CallID   string  `json:"call_id"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Event types of tool calls.
const (
	TypeToolCall         = "tool_call"
	TypePermission       = "permission"
	TypeApprovalParked   = "approval_parked"
	TypeApprovalResolved = "approval_resolved"
	TypeToolResult       = "tool_result"
	TypeNotice           = "notice"
)

// ToolCallEvent is published before a tool call is decided on and run.
type ToolCallEvent struct {
	Header
	Turn      int            `json:"turn"`
	CallID    string         `json:"call_id"`
	Server    string         `json:"server"`
	Tool      string         `json:"tool"` // the name the model used
	Arguments map[string]any `json:"arguments"`
	// ReadOnly and Destructive are the tool's hints, for the card and modal.
	ReadOnly    bool `json:"read_only,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
	// Unsaid: Destructive only by the spec's default (the server gave
	// no hint), not by the server's word.
	Unsaid bool `json:"destructive_unsaid,omitempty"`
	// FromText is set when the model wrote the call as text in its reply
	// rather than as a tool call, and latch recovered it (textcalls.go).
	FromText bool `json:"from_text,omitempty"`
	// Client names the MCP client that made the call through latch
	// serve, as a person reads it (its verified name and what it says of
	// itself: `ci-bot (says "claude-code")`); "" for the model's calls.
	Client string `json:"client,omitempty"`
	// ClientName and ClientVerified are the client as the config names
	// it (permissions.CallClient): unset for a client it does not name.
	ClientName     string `json:"client_name,omitempty"`
	ClientVerified bool   `json:"client_verified,omitempty"`
}

// PermissionEvent is the gate's (or the user's) decision on a call:
// allowed, denied, asked or parked; By is "policy" or "user".
type PermissionEvent struct {
	Header
	Turn     int    `json:"turn"`
	CallID   string `json:"call_id"`
	Tool     string `json:"tool"`
	Decision string `json:"decision"`
	By       string `json:"by"`
	Reason   string `json:"reason,omitempty"`
	Mode     string `json:"mode"`
	// Rule names the argument rule that decided, or put the call to the
	// person: `config FILE: permissions.rules[2]`, `--deny "…"`; "" when
	// none did.
	Rule string `json:"rule,omitempty"`
}

// ApprovalParkedEvent says a call waits for a person's decision.
type ApprovalParkedEvent struct {
	Header
	Turn       int            `json:"turn"`
	ApprovalID string         `json:"approval_id"`
	CallID     string         `json:"call_id"`
	Server     string         `json:"server"`
	Tool       string         `json:"tool"`
	Arguments  map[string]any `json:"arguments"`
	// Digest and Description are of the tool's definition when the call
	// was parked: an approval given later runs the call only if the tool
	// is still the same.
	Digest      string `json:"digest,omitempty"`
	Description string `json:"description,omitempty"`
	// Client names the MCP client whose call through latch serve this is
	// (as ToolCallEvent's), and Expires when it stops waiting; both unset
	// for the model's calls.
	Client  string `json:"client,omitempty"`
	Expires string `json:"expires,omitempty"` // RFC 3339
	// ClientName and ClientVerified are as ToolCallEvent's: the rules of
	// the moment judge the call with them when a person decides it.
	ClientName     string `json:"client_name,omitempty"`
	ClientVerified bool   `json:"client_verified,omitempty"`
}

// ApprovalResolvedEvent says a parked call was approved or rejected.
type ApprovalResolvedEvent struct {
	Header
	ApprovalID string `json:"approval_id"`
	CallID     string `json:"call_id"`
	Decision   string `json:"decision"` // "approved", "rejected", "expired" or "withdrawn"
	By         string `json:"by"`       // "user", or who decided a gateway's call ("alice on /dev/pts/3")
	Reason     string `json:"reason,omitempty"`
}

// ToolResultEvent is published after a call: ok or the error, how long it
// took, and a size-capped preview of the result.
type ToolResultEvent struct {
	Header
	Turn       int    `json:"turn"`
	CallID     string `json:"call_id"`
	Tool       string `json:"tool"`
	OK         bool   `json:"ok"`
	IsError    bool   `json:"is_error,omitempty"` // the tool reported failure
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Preview    string `json:"preview,omitempty"`
	Size       int    `json:"size"`
	// Content is the result as the model is given it (capped as it is):
	// after a crash between this event and the model's copy, a resume
	// gives the model this, not the preview.
	Content   string `json:"content,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	// Resources are the URIs of the resources the result links to or
	// embeds: @SERVER:URI attaches one to a message.
	Resources []string `json:"resources,omitempty"`
	// Parts and Structured are a gateway client's result as the server
	// sent it (redacted): every content part and the structured content,
	// so that a restarted gateway gives back the same (gatewayresult.go).
	Parts      []map[string]any `json:"parts,omitempty"`
	Structured any              `json:"structured_content,omitempty"`
	// soon: the result of a gateway client's call, written before the
	// client is answered and synced soon after, not waited for (logged.go).
	soon bool
}

// Notice is something the user should know that is not an error.
type Notice struct {
	Header
	Text string `json:"text"`
}

// eventTypes make an empty event of each type, by its name on the wire.
// Every event type is here: a test checks it against the source.
var eventTypes = map[string]func() Event{
	TypeSessionStarted:   func() Event { return &SessionStarted{} },
	TypeUserMessage:      func() Event { return &UserMessage{} },
	TypeAssistantDelta:   func() Event { return &AssistantDelta{} },
	TypeThinkingDelta:    func() Event { return &ThinkingDelta{} },
	TypeAssistantMessage: func() Event { return &AssistantMessage{} },
	TypeTurnDone:         func() Event { return &TurnDone{} },
	TypeModelChanged:     func() Event { return &ModelChanged{} },
	TypeCleared:          func() Event { return &Cleared{} },
	TypeError:            func() Event { return &Error{} },
	TypeServerStatus:     func() Event { return &ServerStatusEvent{} },
	TypeToolsChanged:     func() Event { return &ToolsChangedEvent{} },
	TypeToolProgress:     func() Event { return &ToolProgress{} },
	TypeToolCall:         func() Event { return &ToolCallEvent{} },
	TypePermission:       func() Event { return &PermissionEvent{} },
	TypeApprovalParked:   func() Event { return &ApprovalParkedEvent{} },
	TypeApprovalResolved: func() Event { return &ApprovalResolvedEvent{} },
	TypeToolResult:       func() Event { return &ToolResultEvent{} },
	TypeNotice:           func() Event { return &Notice{} },
	TypeMessage:          func() Event { return &MessageEvent{} },
	TypeSettings:         func() Event { return &SettingsEvent{} },
	TypePromptsChanged:   func() Event { return &PromptsChangedEvent{} },
	TypePrompt:           func() Event { return &PromptEvent{} },
	TypeAttachment:       func() Event { return &AttachmentEvent{} },
	TypeResourceUpdated:  func() Event { return &ResourceUpdatedEvent{} },
	TypeResourcesChanged: func() Event { return &ResourcesChangedEvent{} },
	TypeElicitation:      func() Event { return &ElicitationEvent{} },
	TypeElicitAnswer:     func() Event { return &ElicitationAnswerEvent{} },
	TypeSampling:         func() Event { return &SamplingEvent{} },
	TypeSamplingDelta:    func() Event { return &SamplingDelta{} },
	TypeLoginURL:         func() Event { return &LoginURLEvent{} },
	TypeInstructions:     func() Event { return &InstructionsEvent{} },
	TypeCompaction:       func() Event { return &CompactionEvent{} },
	TypeCompactionDelta:  func() Event { return &CompactionDelta{} },
	TypeCallRetried:      func() Event { return &CallRetriedEvent{} },
	TypeToolTask:         func() Event { return &ToolTaskEvent{} },
}

// EventTypes lists the name of every event type, sorted.
func EventTypes() []string {
	out := make([]string, 0, len(eventTypes))
	for t := range eventTypes {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// NewEvent returns an empty event of type typ with its Type set, or nil
// for a name that is not an event type.
func NewEvent(typ string) Event {
	mk, ok := eventTypes[typ]
	if !ok {
		return nil
	}
	e := mk()
	e.Head().Type = typ
	return e
}
