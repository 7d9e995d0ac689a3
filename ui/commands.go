package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

type command struct {
	name, args, help string
	run              func(m *Model, args []string) tea.Cmd
}

// commands are the slash commands, in the order /help lists them.
var commands []command

func init() {
	commands = []command{
		{"help", "", "show keys and commands", (*Model).cmdHelp},
		{"model", "[NAME]", "switch model (no name: pick from a list)", (*Model).cmdModel},
		{"models", "", "list installed models with size and capabilities", (*Model).cmdModels},
		{"servers", "", "MCP servers: state, transport, protocol, tools", (*Model).cmdServers},
		{"tools", "[NAME [off|on]]", "what the model is offered (count, estimated tokens); off/on per server", (*Model).cmdTools},
		{"connect", "NAME|all", "connect a server; reconnect one that is up (re-reads its token)", (*Model).cmdConnect},
		{"close", "NAME|all", "close a server's connection", (*Model).cmdClose},
		{"token", "NAME", "give a server a new token (masked, memory only) and reconnect", (*Model).cmdToken},
		{"login", "NAME", "log in to a server with OAuth (in the browser) and connect it", (*Model).cmdLogin},
		{"logout", "NAME", "log out of a server: revoke and delete its tokens, close it", (*Model).cmdLogout},
		{"logs", "NAME [LEVEL]", "a server's log; LEVEL (debug…emergency) sets what it sends", (*Model).cmdLogs},
		{"prompts", "", "servers' prompts; run one as /SERVER:PROMPT [arg=value …]", (*Model).cmdPrompts},
		{"resources", "[SERVER …]", "resources and templates; watch|unwatch URI; @SERVER:URI attaches one", (*Model).cmdResources},
		{"roots", "[add|remove DIR]", "the directories servers are told of; add/remove one", (*Model).cmdRoots},
		{"mode", "[MODE | SERVER MODE]", "show or set the permission mode: read_only, ask, approve, auto", (*Model).cmdMode},
		{"allow", "[NAME [--always] | TOOL(ARG=PATTERN, …)]", "list the allow-list and sources, or allow a tool for the session (--always: saved), or only calls whose arguments match", (*Model).cmdAllow},
		{"deny", "NAME | TOOL(ARG=PATTERN, …)", "deny a tool's calls for the session, or only those whose arguments match", (*Model).cmdDeny},
		{"revoke", "NAME", "remove a tool's saved or session grant", (*Model).cmdRevoke},
		{"why", "[CALL_ID]", "why the gate decided a call as it did (no id: the last call)", (*Model).cmdWhy},
		{"approvals", "", "calls waiting for approval", (*Model).cmdApprovals},
		{"approve", "ID", "run a waiting call once", (*Model).cmdApprove},
		{"reject", "ID", "deny a waiting call", (*Model).cmdReject},
		{"retry", "CALL_ID", "run a call in doubt (after a crash) again, through the gate", (*Model).cmdRetry},
		{"dismiss", "CALL_ID", "tell the model a call in doubt has an unknown outcome", (*Model).cmdDismiss},
		{"context", "[NUM|default]", "the context budget by part; NUM sets num_ctx for the session", (*Model).cmdContext},
		{"think", "[on|off|low|medium|high|max|default]", "show or set what models that can think are asked", (*Model).cmdThink},
		{"theme", "[NAME]", "list the themes, or switch to one", (*Model).cmdTheme},
		{"compact", "[FOCUS]", "replace the older turns, for the model, with a summary it writes (the log keeps them)", (*Model).cmdCompact},
		{"uncompact", "", "give the model the whole conversation again, when it fits", (*Model).cmdUncompact},
		{"clear", "", "start the conversation afresh", (*Model).cmdClear},
		{"fork", "", "go on in a new session branched from this one (this one stays, resumable)", (*Model).cmdFork},
		{"quit", "", "leave latch", (*Model).cmdQuit},
	}
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func (c command) usage() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " " + c.args
}

// runCommand runs a slash command line. Unknown commands and bad arguments
// get a one-line error with the usage; nothing here reaches the model.
func (m *Model) runCommand(line string) tea.Cmd {
	if isPromptLine(line) {
		return m.runPromptLine(line) // a server's prompt (prompts.go)
	}
	fields := strings.Fields(line)
	name := strings.TrimPrefix(fields[0], "/")
	c, ok := findCommand(name)
	if !ok {
		names := make([]string, len(commands))
		for i, c := range commands {
			names[i] = "/" + c.name
		}
		m.addError(fmt.Sprintf("unknown command /%s: commands are %s", name, strings.Join(names, " ")))
		return nil
	}
	return c.run(m, fields[1:])
}

func (m *Model) badArgs(name string) {
	c, _ := findCommand(name)
	m.addError("usage: " + c.usage())
}

func (m *Model) cmdHelp(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("help")
		return nil
	}
	if m.helpRows() >= 8 {
		// Over the chat, a page at a time when it does not fit; on a very
		// short screen it goes into the chat instead, where it scrolls.
		m.helpOpen, m.helpScroll = true, 0
		m.dirty = true
		return nil
	}
	var b strings.Builder
	b.WriteString("Commands\n")
	w0 := 0
	for _, c := range commands {
		w0 = max(w0, len(c.usage()))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s %s\n", w0, c.usage(), c.help)
	}
	b.WriteString("\nKeys\n")
	for _, group := range m.keys.FullHelp() {
		for _, k := range group {
			h := k.Help()
			fmt.Fprintf(&b, "  %-16s %s\n", h.Key, h.Desc)
		}
	}
	m.addNotice(strings.TrimRight(b.String(), "\n"))
	return nil
}

// clearedMsg says the session has forgotten the conversation (/clear).
type clearedMsg struct{}

// cmdClear starts the conversation afresh. The session cancels a running
// turn and waits for its end, so that runs in a command; the chat is
// emptied when it is done (handleCleared). Meanwhile nothing is sent:
// a message typed then is queued.
func (m *Model) cmdClear(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("clear")
		return nil
	}
	m.clearing++
	sess := m.sess
	return func() tea.Msg {
		sess.Clear()
		return clearedMsg{}
	}
}

// handleCleared empties the chat once the session has forgotten it. The
// queue goes on as after the turn's end: now, if that end was seen while
// clearing, else when it comes.
func (m *Model) handleCleared() {
	m.clearing--
	m.chat.clear()
	endSeen := !m.running
	m.running, m.reply = false, nil
	m.dirty = true
	if endSeen {
		m.sendQueued()
	}
}

func (m *Model) cmdQuit(args []string) tea.Cmd { return m.quit() }

func (m *Model) cmdModel(args []string) tea.Cmd {
	switch len(args) {
	case 0:
		return m.listModels(true)
	case 1:
		return m.setModel(args[0])
	}
	m.badArgs("model")
	return nil
}

func (m *Model) cmdModels(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("models")
		return nil
	}
	return m.listModels(false)
}

// modelsMsg carries the installed models (or why they could not be listed).
type modelsMsg struct {
	models []session.ModelInfo
	err    error
	pick   bool // open the picker, rather than print a list
}

// modelSetMsg reports the end of a model switch.
type modelSetMsg struct {
	info session.ModelInfo
	err  error
	keep *modelKept // ctrl+s in the picker: what keeping it as the default did
}

// probeMsg reports what Ollama said about the configured model at start.
type probeMsg struct {
	info session.ModelInfo
	err  error
}

func (m *Model) listModels(pick bool) tea.Cmd {
	b := m.models
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ms, err := b.Models(ctx)
		return modelsMsg{models: ms, err: err, pick: pick}
	}
}

func (m *Model) setModel(name string) tea.Cmd {
	b := m.models
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		info, err := b.SetModel(ctx, name)
		return modelSetMsg{info: info, err: err}
	}
}

func (m *Model) probe() tea.Cmd {
	b := m.models
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		info, err := b.Probe(ctx)
		return probeMsg{info: info, err: err}
	}
}

func (m *Model) handleModels(msg modelsMsg) {
	if msg.err == nil {
		m.modelNames = m.modelNames[:0]
		for _, x := range msg.models {
			m.modelNames = append(m.modelNames, x.Name)
		}
	}
	switch {
	case msg.err != nil:
		m.addError(userMessage(msg.err))
	case len(msg.models) == 0:
		m.addError("Ollama has no models installed: pull one with `ollama pull NAME`, then /model NAME")
	case msg.pick:
		m.picker = newPicker(msg.models, m.models.Model())
	default:
		// A model whose /api/show failed has its capabilities unknown: the
		// table says so, and a line under it says why.
		table := modelTable(msg.models, m.models.Model())
		for _, x := range msg.models {
			if !x.CapsKnown() {
				table += "\n  " + x.Name + ": capabilities unknown: " + strings.Join(strings.Fields(x.ShowErr), " ")
			}
		}
		m.addNotice(table)
	}
	m.dirty = true
}

// handleProbe shows what went wrong asking Ollama about the configured
// model at start, if anything. A model Ollama does not have (a typo in
// --model) opens the picker after the error, as no model at all does.
func (m *Model) handleProbe(msg probeMsg) tea.Cmd {
	m.dirty = true
	if msg.err == nil {
		return nil
	}
	m.addError(msg.err.Error())
	if errors.Is(msg.err, session.ErrModelNotFound) {
		return m.listModels(true)
	}
	return nil
}

// handleModelSet reports a model switch. A model Ollama does not have (a
// typo in /model NAME) opens the picker after the error, as at start: the
// name typed is not lost to a message the person must retype.
func (m *Model) handleModelSet(msg modelSetMsg) tea.Cmd {
	if msg.err != nil {
		m.addError(userMessage(msg.err))
		if errors.Is(msg.err, session.ErrModelNotFound) && msg.keep == nil {
			return m.listModels(true)
		}
		return nil
	}
	m.addNotice("model: " + msg.info.Name + capsNote(msg.info))
	m.noteKept(msg.info.Name, msg.keep)
	return nil
}

func capsNote(info session.ModelInfo) string {
	if !info.CapsKnown() {
		// The picker's line is short: /models says why in full.
		return " (tools, thinking: unknown: /api/show failed)"
	}
	var caps []string
	if info.Tools() {
		caps = append(caps, "tools")
	}
	if info.Thinking() {
		caps = append(caps, "thinking")
	}
	if len(caps) == 0 {
		return ""
	}
	return " (" + strings.Join(caps, ", ") + ")"
}

// modelTable lists models: name, size, parameters, tools, thinking, and
// any other capability a model has (vision, audio, …: names Ollama may add
// are shown as they come, never refused), in a last column when some model
// has one.
func modelTable(ms []session.ModelInfo, current string) string {
	w := len("MODEL")
	also := false
	for _, x := range ms {
		w = max(w, len(x.Name))
		also = also || otherCaps(x) != ""
	}
	var b strings.Builder
	head := fmt.Sprintf("  %-*s  %8s  %6s  %-7s  %-8s", w, "MODEL", "SIZE", "PARAMS", "TOOLS", "THINKING")
	if also {
		head += "  ALSO"
	}
	b.WriteString(strings.TrimRight(head, " ") + "\n")
	for _, x := range ms {
		mark := " "
		if x.Name == current {
			mark = "*"
		}
		tools, thinking := yesNo(x.Tools()), yesNo(x.Thinking())
		if !x.CapsKnown() {
			tools, thinking = "unknown", "unknown" // /api/show failed: see handleModels
		}
		line := fmt.Sprintf("%s %-*s  %8s  %6s  %-7s  %-8s", mark, w, x.Name, humanSize(x.Size), x.ParameterSize,
			tools, thinking)
		if also {
			line += "  " + otherCaps(x)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// otherCaps are a model's capabilities besides completion, tools and
// thinking, as one line: Ollama's names, sanitized, each at most 24
// characters and at most 6 of them (a server may send anything).
func otherCaps(x session.ModelInfo) string {
	var out []string
	more := 0
	for _, c := range x.Capabilities {
		switch {
		case c == "completion" || c == "tools" || c == "thinking":
		case len(out) == 6:
			more++
		default:
			if r := []rune(sanitize.Line(c)); len(r) > 24 {
				c = string(r[:23]) + "…"
			} else {
				c = string(r)
			}
			out = append(out, c)
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("+%d more", more))
	}
	return strings.Join(out, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func humanSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for x := n / unit; x >= unit; x /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
