package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

// promptUI is what the model keeps of the servers' prompts: the list (made
// display-safe when read), the prompt being got, and argument values the
// servers completed.
type promptUI struct {
	list    []session.Prompt
	pending string // "/server:prompt" while RunPrompt runs
	values  valueCache
	asking  string // the key of the completion/complete in flight, if any
}

const promptUsage = `usage: /SERVER:PROMPT [arg=value …] (a value with spaces in quotes: city="New York"; /prompts lists them)`

// refreshPrompts reads the prompt list again (a server's prompts changed,
// or a server came or went). What a server said of its prompts is made
// inert here, once: the list is drawn and completed from as it is.
func (m *Model) refreshPrompts() {
	if m.prompt == nil {
		return
	}
	m.pr.list = sanitize.MapStrings(m.prompt.Prompts(), sanitize.Line)
}

// findPromptUI is a prompt of the list by server and name.
func (m *Model) findPromptUI(server, name string) (session.Prompt, bool) {
	for _, p := range m.pr.list {
		if p.Server == server && p.Name == name {
			return p, true
		}
	}
	return session.Prompt{}, false
}

// promptRanMsg is the end of RunPrompt: the prompt's card and turn are
// under way, or err says why not.
type promptRanMsg struct {
	name string
	err  error
}

// isPromptLine says whether a line is /SERVER:PROMPT [arg=value …].
func isPromptLine(line string) bool {
	head, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	return strings.HasPrefix(head, "/") && strings.Contains(head, ":")
}

// runPromptLine runs /SERVER:PROMPT [arg=value …]: the arguments are
// read here; the session checks them against the prompt, gets it and
// starts the turn (in a command: it asks the server).
func (m *Model) runPromptLine(line string) tea.Cmd {
	head, rest, _ := strings.Cut(line, " ")
	server, name, _ := strings.Cut(strings.TrimPrefix(head, "/"), ":")
	shown := sanitize.Line(head)
	if server == "" || name == "" {
		m.addError(promptUsage)
		return nil
	}
	args, err := parsePromptArgs(rest)
	if err != nil {
		m.addError(shown + ": " + err.Error() + "; " + promptUsage)
		return nil
	}
	if m.running || m.clearing > 0 || m.attaching > 0 {
		// Like a message typed during a reply: it waits, visibly, and
		// runs when the turn ends (Esc takes it back).
		m.queued = append(m.queued, line)
		m.addNotice(fmt.Sprintf("queued (%d): %s runs when this reply ends · esc takes it back", len(m.queued), shown))
		return nil
	}
	m.pr.pending = head
	m.running = true
	b := m.prompt
	return func() tea.Msg {
		return promptRanMsg{name: head, err: b.RunPrompt(server, name, args)}
	}
}

// handlePromptRan shows why a prompt did not run; the turn it started
// otherwise goes on as events.
func (m *Model) handlePromptRan(msg promptRanMsg) {
	if msg.err != nil {
		if m.pr.pending != "" {
			m.running = false
		}
		m.addError(sanitizeText(userMessage(msg.err)))
	}
	m.pr.pending = ""
	m.dirty = true
}

// onPromptEvent shows a prompt's card: the turn has begun.
func (m *Model) onPromptEvent(e *session.PromptEvent) {
	m.turn = e.Turn
	m.running = !m.replaying
	m.reply = nil
	m.pr.pending = ""
	m.chat.add(&entry{kind: promptEntry, turn: e.Turn, prompt: e})
	m.chat.gotoBottom()
}

// onPromptsChanged reads the list again, and says what changed (not for
// a connection's first list: that is the server connecting).
func (m *Model) onPromptsChanged(e *session.PromptsChangedEvent) {
	m.refreshPrompts()
	if e.First || len(e.Added)+len(e.Changed)+len(e.Removed) == 0 {
		return
	}
	m.addNotice(fmt.Sprintf("%s: prompt list changed (%d prompts; added: %s; changed: %s; removed: %s)",
		sanitize.Line(e.Server), e.Prompts, listOrNone(e.Added), listOrNone(e.Changed), listOrNone(e.Removed)))
}

// cmdPrompts lists every connected server's prompts with their arguments.
func (m *Model) cmdPrompts(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("prompts")
		return nil
	}
	m.refreshPrompts()
	if len(m.pr.list) == 0 {
		m.addNotice("no prompts: no connected server offers any (/servers shows the servers)")
		return nil
	}
	m.addNotice(promptListing(m.pr.list))
	return nil
}

// promptListing is /prompts: by server, each prompt's command, its
// arguments (the required ones marked), its title and description.
func promptListing(list []session.Prompt) string {
	var b strings.Builder
	b.WriteString("prompts: run one with /SERVER:PROMPT [arg=value …]; tab completes")
	server := ""
	for _, p := range list {
		if p.Server != server {
			server = p.Server
			fmt.Fprintf(&b, "\n%s", server)
		}
		fmt.Fprintf(&b, "\n  /%s:%s", p.Server, p.Name)
		if len(p.Arguments) > 0 {
			b.WriteString("  " + p.ArgumentNames())
		}
		if about := promptAbout(p); about != "" {
			b.WriteString("\n      " + about)
		}
	}
	return b.String()
}

// promptAbout is a prompt's title and description on one line.
func promptAbout(p session.Prompt) string {
	parts := []string{}
	if p.Title != "" && p.Title != p.Name {
		parts = append(parts, p.Title)
	}
	if d := strings.Join(strings.Fields(p.Description), " "); d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, ": ")
}
