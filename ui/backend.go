package ui

import (
	"context"

	"latch/permissions"
	"latch/session"
)

// What the UI needs of a session, by concern. *session.Session implements
// every one; each part of the UI holds only the ones it uses, so a screen
// can be tested with a fake of just those.

// Chat is the conversation: sending, stopping, forgetting, and what the
// status line says of the session.
type Chat interface {
	ID() string
	Host() string
	Send(text string) error
	// Cancel stops the streaming reply.
	Cancel()
	// CancelTools stops the running tool calls (the turn goes on); it
	// reports whether any was running.
	CancelTools() bool
	// Clear forgets the conversation. It cancels a running turn and waits
	// for it to end: never call it from Update.
	Clear()
	// LogProblem says why the session log cannot be written ("" when it
	// can); meanwhile no tool call runs.
	LogProblem() string
	// InputHistory is what was sent, oldest first, of this session and
	// earlier ones; Remember adds to it (see session.Remember).
	InputHistory() []string
	Remember(text string) error
}

// Models is the model: which one, which there are, switching, its
// context. Models, SetModel, Probe and SetNumCtx ask Ollama: they run in
// commands.
type Models interface {
	Model() string
	Models(ctx context.Context) ([]session.ModelInfo, error)
	SetModel(ctx context.Context, name string) (session.ModelInfo, error)
	Probe(ctx context.Context) (session.ModelInfo, error)
	// Context is the context budget now: the num_ctx in effect, the last
	// reply's counts, the estimate by part. It asks nothing of Ollama.
	Context() session.ContextInfo
	// SetNumCtx sets num_ctx for the session (0: drops it), capped at the
	// model's trained maximum; it asks Ollama, so it runs in a command.
	SetNumCtx(ctx context.Context, n int) (session.NumCtxChange, error)
	// Think is what models that can think are asked ("" Ollama's default,
	// "on", "off", or a level); SetThink changes it from the next request.
	Think() string
	SetThink(v string) error
}

// Servers are the MCP servers. ConnectServer, CloseServer, SetToken and
// WaitServers block: they run in commands.
type Servers interface {
	ServerNames() []string
	Servers() []session.ServerStatus
	ConnectServer(name string) error
	CloseServer(name string) error
	SetToken(name, token string) error
	Tools(server string) ([]session.Tool, error)
	ServerLogs(name string) ([]string, error)
	WaitServers(ctx context.Context)
}

// Permissions are the gate's settings: the modes and the allow-list.
type Permissions interface {
	Mode() permissions.Mode
	ServerMode(server string) (permissions.Mode, bool)
	SetMode(m permissions.Mode)
	SetServerMode(server string, m permissions.Mode) error
	AllowList() []permissions.Entry
	Grant(name string) error
	// ApprovesExactArgs says whether `a` in the box approves only the
	// call's exact arguments for server (approve_args "exact").
	ApprovesExactArgs(server string) bool
	// GrantAlways saves a grant for the tool as defined now (/allow NAME
	// --always); SavedGrantsFile is where ("" when saved grants are off).
	GrantAlways(name string) error
	SavedGrantsFile() string
	// Revoke removes a tool's saved and session grants (/revoke NAME) and
	// says what it removed.
	Revoke(name string) ([]string, error)
	// AddRule adds an argument rule for the session: /allow or /deny
	// (flag) with a tool's name or the compact form TOOL(ARG=PATTERN, …).
	AddRule(flag, text string) (permissions.Rule, error)
	// RuleChoices are the allow rules A in the box can save for the
	// asked call, derived from its real arguments; AddSavedRule applies
	// one just written into the config file.
	RuleChoices(callID string) []permissions.RuleSpec
	AddSavedRule(r permissions.Rule)
	// ArgsLookedAt names the arguments of server's tool name that the
	// argument rules look at: the box shows their values whole.
	ArgsLookedAt(server, name string) []string
}

// Decisions answer the gate's questions: an asked call (the modal) and
// parked ones (/approve, /reject). Decide runs in a command.
type Decisions interface {
	AnswerAsk(callID string, a session.Answer) bool
	Decide(approvalID string, approve bool) error
	Approvals() []permissions.Approval
	// ApprovalNotice says when a rule of the moment denies the asked or
	// parked call callID (approving will refuse it); it reads the config.
	ApprovalNotice(callID string) string
}

// Resume finishes a turn a resumed session still owes.
type Resume interface {
	Continue() bool
	Blocked() string
	// InDoubtCalls lists the calls in doubt that wait for a person.
	InDoubtCalls() []session.InDoubt
	Retry(callID string) error
	Dismiss(callID string) error
}

// Prompts are the servers' prompts: the list, running one, completing an
// argument's value. RunPrompt and CompletePrompt block: they run in
// commands.
type Prompts interface {
	Prompts() []session.Prompt
	RunPrompt(server, prompt string, args map[string]string) error
	CompletePrompt(ctx context.Context, server, prompt, arg, partial string, others map[string]string) ([]string, error)
}

// Resources are the servers' resources (/resources, @SERVER:URI). All but
// ResourceServers ask a server: they run in commands.
type Resources interface {
	ResourceServers() []string
	ListResources(ctx context.Context, server string) (session.ResourceListing, error)
	WatchResource(ctx context.Context, server, uri string) error
	UnwatchResource(ctx context.Context, server, uri string) error
	CompleteResource(ctx context.Context, server, template, arg, value string, filled map[string]string) ([]string, error)
}

// Elicitations answer a server's requests for input: a form to fill in
// or a URL to open (see elicit.go). AnswerElicitation does not block.
type Elicitations interface {
	AnswerElicitation(id, action string, content map[string]any) error
}

// Backend is all the UI needs of a session: what ui.New takes.
// *session.Session implements it.
type Backend interface {
	Chat
	Models
	Servers
	Permissions
	Decisions
	Resume
	Prompts
	Resources
	Elicitations
	Logins
	Compaction
}

// backends are the parts of the backend the model holds, one per concern.
type backends struct {
	sess    Chat
	models  Models
	srv     Servers
	perms   Permissions
	asks    Decisions
	resume  Resume
	prompt  Prompts
	res     Resources
	elicit  Elicitations
	compact Compaction // compact.go
}

func splitBackend(b Backend) backends {
	return backends{sess: b, models: b, srv: b, perms: b, asks: b, resume: b, prompt: b, res: b, elicit: b, compact: b}
}
