package session

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"

	"latch/mcp"
)

// Prompt is one prompt a server offers (see mcp.Prompt).
type Prompt = mcp.Prompt

// PromptArgument is one argument of a prompt (see mcp.PromptArgument).
type PromptArgument = mcp.PromptArgument

// PromptEvent is a server's prompt run by the person (/SERVER:PROMPT): the
// card the chat shows before the reply, with the messages as they went
// into the conversation.
type PromptEvent struct {
	Header
	Turn        int               `json:"turn"`
	Server      string            `json:"server"`
	Prompt      string            `json:"prompt"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Arguments   map[string]string `json:"arguments,omitempty"`
	Messages    []PromptShown     `json:"messages"`
}

// PromptShown is one message of a prompt as the person sees it (and, but
// for an image sent as one, as the model reads it).
type PromptShown struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// PromptsChangedEvent says a server's prompts were listed (First: the
// connection's first list) or changed: Added, Changed and Removed name
// the prompts that differ.
type PromptsChangedEvent struct {
	Header
	Server  string   `json:"server"`
	Prompts int      `json:"prompts"`
	First   bool     `json:"first,omitempty"`
	Added   []string `json:"added,omitempty"`
	Changed []string `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// publishPromptsChanged turns the manager's event into the session's.
func (s *Session) publishPromptsChanged(e mcp.PromptsChanged) {
	s.publish(&PromptsChangedEvent{Header: s.header(TypePromptsChanged), Server: e.Server, Prompts: e.Prompts,
		First: e.First, Added: e.Added, Changed: e.Changed, Removed: e.Removed})
}

// Prompts lists the prompts of every connected server, by server, then
// name; redacted.
func (s *Session) Prompts() []Prompt {
	if s.servers == nil {
		return nil
	}
	return s.servers.Prompts()
}

// CompletePrompt asks a server for the values an argument of one of its
// prompts may take, starting with partial; others are the arguments
// given so far. A server without the completions capability gives none,
// without an error. It blocks: run it in a command.
func (s *Session) CompletePrompt(ctx context.Context, server, prompt, arg, partial string, others map[string]string) ([]string, error) {
	if s.servers == nil {
		return nil, errNoServers
	}
	return s.servers.Complete(ctx, server, prompt, arg, partial, others)
}

// findPrompt is the prompt a server lists under name, with an error that
// says what there is when it lists none such.
func (s *Session) findPrompt(server, name string) (Prompt, error) {
	if s.servers == nil {
		return Prompt{}, errNoServers
	}
	list, listed, err := s.servers.ServerPrompts(server)
	if err != nil {
		return Prompt{}, &UserError{Msg: err.Error()}
	}
	for _, p := range list {
		if p.Name == name {
			return p, nil
		}
	}
	if !listed {
		st, _ := s.servers.Status(server)
		if st.State != mcp.StateConnected {
			return Prompt{}, &UserError{Msg: fmt.Sprintf("%s is %s: its prompts are known once it is connected (/connect %s)", server, st.Summary(), server)}
		}
		return Prompt{}, &UserError{Msg: fmt.Sprintf("%s offers no prompts (or has not listed them yet)", server)}
	}
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.Name
	}
	return Prompt{}, &UserError{Msg: fmt.Sprintf("%s has no prompt %q (prompts: %s)", server, name, orNone(names))}
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// checkPromptArgs checks args against the prompt's arguments: every
// required one given, none it does not take.
func checkPromptArgs(p Prompt, args map[string]string) error {
	var unknown []string
	for k := range args {
		if _, ok := p.Argument(k); !ok {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		return &UserError{Msg: fmt.Sprintf("/%s:%s takes no argument %s (arguments: %s)", p.Server, p.Name, strings.Join(unknown, ", "), p.ArgumentNames())}
	}
	for _, a := range p.Arguments {
		if v, ok := args[a.Name]; a.Required && (!ok || v == "") {
			return &UserError{Msg: fmt.Sprintf("/%s:%s needs %s (arguments: %s); e.g. /%s:%s %s=…", p.Server, p.Name, a.Name,
				p.ArgumentNames(), p.Server, p.Name, a.Name)}
		}
	}
	return nil
}

// RunPrompt runs a server's prompt: it checks the arguments against the
// prompt's (the required ones, and no others), gets the prompt, shows it
// as a card (a prompt event), puts its messages into the conversation
// (logged, so a resumed session has them) and runs the turn as Send does.
// Like Send, it fails with ErrBusy while a turn runs and ErrNoModel before
// a model is chosen. It blocks until the prompt is got (Cancel stops
// that): run it in a command.
func (s *Session) RunPrompt(server, prompt string, args map[string]string) error {
	p, err := s.findPrompt(server, prompt)
	if err != nil {
		return err
	}
	if err := checkPromptArgs(p, args); err != nil {
		return err
	}
	if err := s.unfinished(); err != nil {
		return err
	}
	s.mu.Lock()
	goOn := s.goOn
	s.mu.Unlock()
	turn, ctx, done, err := s.begin()
	if err != nil {
		return err
	}
	res, err := s.servers.GetPrompt(ctx, server, prompt, args)
	if err != nil {
		s.abandon(turn, done, goOn)
		return &UserError{Msg: fmt.Sprintf("/%s:%s: %s", server, prompt, err.Error())}
	}
	msgs, shown := s.promptMessages(ctx, res)
	s.publish(&PromptEvent{Header: s.header(TypePrompt), Turn: turn, Server: server, Prompt: prompt, Title: p.Title,
		Description: res.Description, Arguments: args, Messages: shown})
	for _, m := range msgs {
		s.appendHistory(turn, m)
	}
	go s.runTurn(ctx, turn, done, nil)
	return nil
}

// unfinished is Send's refusal while the last turn still owes tool calls.
func (s *Session) unfinished() error {
	s.mu.Lock()
	owed := len(s.owed) > 0
	s.mu.Unlock()
	if !owed {
		return nil
	}
	why := s.Blocked()
	if why == "" {
		why = "its tool calls run as soon as the servers are connected"
	}
	return &UserError{Msg: "the last turn is not finished: " + why}
}

// abandon gives back a turn that begin claimed and that never started:
// nothing of it was published.
func (s *Session) abandon(turn int, done chan struct{}, goOn bool) {
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.cancel = nil
	if s.turn == turn {
		s.turn--
	}
	s.goOn = goOn
	s.mu.Unlock()
	close(done)
}

// promptMessages turns a prompt's messages into the conversation's, and
// says each as the person sees it. An image goes to a model that can see
// (its capabilities include vision) as an image; otherwise it is
// described, as is anything else that is not text: nothing is dropped
// without a word.
func (s *Session) promptMessages(ctx context.Context, res *mcp.PromptResult) ([]api.Message, []PromptShown) {
	vision := s.modelCan(ctx, "vision")
	model := s.Model()
	var msgs []api.Message
	var shown []PromptShown
	for _, pm := range res.Messages {
		m := api.Message{Role: pm.Role, Content: promptText(pm)}
		if isImage(pm) {
			switch {
			case len(pm.Data) > MaxImageBytes:
				m.Content += " (not shown to the model: " + tooBigImage(len(pm.Data)) + ")"
			case vision:
				m.Images = []api.ImageData{pm.Data}
				m.Content += " (sent to the model as an image)"
			default:
				m.Content += fmt.Sprintf(" (not shown to the model: %s cannot see images, it has no vision capability)", model)
			}
		}
		msgs = append(msgs, m)
		shown = append(shown, PromptShown{Role: m.Role, Text: m.Content})
	}
	return msgs, shown
}

// isImage reports whether a prompt message is an image (a picture, or a
// resource whose bytes are one).
func isImage(pm mcp.PromptMessage) bool {
	return pm.Data != nil && (pm.Kind == mcp.PartImage || pm.Kind == mcp.PartResource && strings.HasPrefix(pm.MIMEType, "image/"))
}

// promptText is the text of a prompt message: its text, an embedded
// resource's text after a line naming it, and for anything else a line
// that says what it is.
func promptText(pm mcp.PromptMessage) string {
	cut := ""
	if pm.Truncated {
		cut = fmt.Sprintf("\n[cut: %d of %d bytes shown]", len(pm.Text), pm.Size)
	}
	switch {
	case pm.Kind == mcp.PartText:
		return pm.Text + cut
	case pm.Kind == mcp.PartResource && pm.Data == nil && pm.Text != "":
		return fmt.Sprintf("[resource %s%s]\n%s%s", pm.URI, mimeNote(pm.MIMEType), pm.Text, cut)
	case isImage(pm):
		return fmt.Sprintf("[image%s%s, %s]", uriNote(pm.URI), mimeNote(pm.MIMEType), byteSize(len(pm.Data)))
	case pm.Kind == mcp.PartResource && pm.Data != nil:
		return fmt.Sprintf("[resource %s%s, %s of binary data: not sent to the model]", pm.URI, mimeNote(pm.MIMEType), byteSize(len(pm.Data)))
	case pm.Kind == mcp.PartAudio && pm.Data != nil:
		return fmt.Sprintf("[audio%s, %s: not sent to the model, latch sends it no audio]", mimeNote(pm.MIMEType), byteSize(len(pm.Data)))
	case pm.Kind == mcp.PartLink:
		return fmt.Sprintf("[resource link %s%s%s]", pm.URI, nameNote(pm.Text), mimeNote(pm.MIMEType))
	}
	return pm.Text + cut
}

func mimeNote(mime string) string {
	if mime == "" {
		return ""
	}
	return " (" + mime + ")"
}

func uriNote(uri string) string {
	if uri == "" {
		return ""
	}
	return " " + uri
}

func nameNote(name string) string {
	if name == "" {
		return ""
	}
	return " “" + name + "”"
}

// byteSize is n bytes for a person: "812 bytes", "12.3 kB".
func byteSize(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d bytes", n)
	}
	if n < 1_000_000 {
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1_000_000)
}

// modelCaps are the current model's capabilities, from Ollama's
// /api/show the first time they are needed; known says whether Ollama
// could say.
func (s *Session) modelCaps(ctx context.Context) (model string, caps []string, known bool) {
	s.mu.Lock()
	model = s.model
	caps, known = s.caps[model]
	s.mu.Unlock()
	if known {
		return model, caps, true
	}
	show, err := s.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return model, nil, false
	}
	caps = capStrings(show)
	s.mu.Lock()
	s.caps[model] = caps
	s.mu.Unlock()
	return model, caps, true
}

// modelCan reports whether the current model has a capability. Unknown
// counts as no.
func (s *Session) modelCan(ctx context.Context, capability string) bool {
	_, caps, _ := s.modelCaps(ctx)
	return slices.Contains(caps, capability)
}
