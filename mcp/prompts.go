package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Prompt is one prompt a server offers, as the person sees it: every text
// the server gave is redacted.
type Prompt struct {
	Server      string
	Name        string // the prompt's name on the server
	Title       string // a display title, if the server gave one
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// ArgumentNames lists the prompt's arguments, the required ones marked:
// "city (required), state".
func (p Prompt) ArgumentNames() string {
	if len(p.Arguments) == 0 {
		return "none"
	}
	out := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		out[i] = a.Name
		if a.Required {
			out[i] += " (required)"
		}
	}
	return strings.Join(out, ", ")
}

// Argument finds one of the prompt's arguments by name.
func (p Prompt) Argument(name string) (PromptArgument, bool) {
	for _, a := range p.Arguments {
		if a.Name == name {
			return a, true
		}
	}
	return PromptArgument{}, false
}

// promptState is a server's prompt list, kept per connection (gen) and
// refreshed on prompts/list_changed: one refresh runs at a time, and at
// most one is pending (see requestPrompts).
type promptState struct {
	mu     sync.Mutex
	gen    int  // the connection the list is of
	listed bool // the list of gen is in
	list   []Prompt
}

// PromptsChanged says a server's prompt list was listed or refreshed.
// Added, Changed and Removed name the prompts that differ from the list
// before; all three are empty for a connection's first list.
type PromptsChanged struct {
	Server  string
	Prompts int
	First   bool // the connection's first list
	Added   []string
	Changed []string
	Removed []string
}

func (e PromptsChanged) server() string { return e.Server }

// Prompts lists the prompts of every connected server that offers some,
// by server, then name.
func (m *Manager) Prompts() []Prompt {
	var out []Prompt
	for _, n := range m.order {
		out = append(out, m.servers[n].currentPrompts()...)
	}
	return out
}

// ServerPrompts lists one server's prompts, and whether they have been
// listed for its current connection.
func (m *Manager) ServerPrompts(name string) ([]Prompt, bool, error) {
	s, err := m.get(name)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	gen, up := s.gen, s.conn != nil
	s.mu.Unlock()
	s.prompts.mu.Lock()
	defer s.prompts.mu.Unlock()
	if !up || s.prompts.gen != gen || !s.prompts.listed {
		return nil, false, nil
	}
	return slices.Clone(s.prompts.list), true, nil
}

// currentPrompts is the prompt list of the live connection, if any.
func (s *server) currentPrompts() []Prompt {
	s.mu.Lock()
	gen, up := s.gen, s.conn != nil
	s.mu.Unlock()
	s.prompts.mu.Lock()
	defer s.prompts.mu.Unlock()
	if !up || s.prompts.gen != gen {
		return nil
	}
	return slices.Clone(s.prompts.list)
}

// requestPrompts asks for the server's prompt list to be listed again
// (after connect, and on prompts/list_changed), coalesced per connection
// (see coalescer). It never blocks: it may run on the transport's read
// loop.
func (m *Manager) requestPrompts(s *server, gen int) {
	s.promptsRefresh.request(gen, func() bool { return s.live(gen) }, func() bool { return m.listPrompts(s, gen) })
}

// listPrompts lists every page of the server's prompts for connection gen
// and reports a change. It returns true when the connection is not up
// yet (a list_changed that came before the connect finished): to be
// tried again.
func (m *Manager) listPrompts(s *server, gen int) (retry bool) {
	s.mu.Lock()
	c, cur, connecting := s.conn, s.gen == gen, s.status.State == StateConnecting
	s.mu.Unlock()
	switch {
	case !cur:
		return false
	case c == nil:
		return connecting
	case c.client.GetServerCapabilities().Prompts == nil:
		return false // it offers none
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout())
	defer cancel()
	res, err := c.client.ListPrompts(ctx, mcpgo.ListPromptsRequest{})
	if err != nil {
		s.log.add("latch: listing the prompts failed: " + m.red.apply(shortError(err)))
		return false
	}
	list := make([]Prompt, 0, len(res.Prompts))
	for _, p := range res.Prompts {
		list = append(list, redactAll(m.red, convertPrompt(s.cfg.Name, p)))
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	if ev, ok := s.replacePrompts(gen, c, list); ok {
		s.log.add(fmt.Sprintf("latch: %d prompts listed", len(list)))
		m.emit(ev)
	}
	return false
}

// replacePrompts makes list the prompts of connection gen, if c is still
// it, and says what changed; false when nothing did.
func (s *server) replacePrompts(gen int, c *conn, list []Prompt) (PromptsChanged, bool) {
	s.mu.Lock()
	live := s.gen == gen && s.conn == c
	s.mu.Unlock()
	if !live {
		return PromptsChanged{}, false
	}
	ps := &s.prompts
	ps.mu.Lock()
	defer ps.mu.Unlock()
	first := ps.gen != gen || !ps.listed
	ev := PromptsChanged{Server: s.cfg.Name, Prompts: len(list), First: first}
	if !first {
		ev.Added, ev.Changed, ev.Removed = diffPrompts(ps.list, list)
		if len(ev.Added)+len(ev.Changed)+len(ev.Removed) == 0 {
			return PromptsChanged{}, false
		}
	}
	ps.gen, ps.listed, ps.list = gen, true, list
	return ev, true
}

// diffPrompts names the prompts added, redefined and removed from before
// to after.
func diffPrompts(before, after []Prompt) (added, changed, removed []string) {
	old := map[string]Prompt{}
	for _, p := range before {
		old[p.Name] = p
	}
	for _, p := range after {
		o, ok := old[p.Name]
		switch {
		case !ok:
			added = append(added, p.Name)
		case !samePrompt(o, p):
			changed = append(changed, p.Name)
		}
		delete(old, p.Name)
	}
	for n := range old {
		removed = append(removed, n)
	}
	sort.Strings(removed)
	return added, changed, removed
}

func samePrompt(a, b Prompt) bool {
	return a.Title == b.Title && a.Description == b.Description && slices.Equal(a.Arguments, b.Arguments)
}

func convertPrompt(server string, p mcpgo.Prompt) Prompt {
	out := Prompt{Server: server, Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	return out
}

// GetPrompt gets a prompt from a server with the arguments given
// (prompts/get), within the server's timeout or until ctx ends. What
// comes back, and the error, are redacted.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*PromptResult, error) {
	s, c, err := m.live(server)
	if err != nil {
		return nil, m.red.redactError(err)
	}
	timeout := s.cfg.timeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var req mcpgo.GetPromptRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.client.GetPrompt(cctx, req)
	switch {
	case err == nil:
		return convertPromptResult(res, m.opts.MaxResultBytes, m.red), nil
	case ctx.Err() != nil:
		return nil, errors.New("cancelled")
	case errors.Is(cctx.Err(), context.DeadlineExceeded) || pastDeadline(cctx):
		return nil, fmt.Errorf("%s gave no prompt %s within %s (its timeout)", server, name, timeout)
	case c.isAuthError(err):
		m.authExpired(s, c)
		return nil, fmt.Errorf("%w: %s %s", ErrNotConnected, server, m.authLost(s))
	case errors.Is(err, transport.ErrTransportClosed):
		return nil, fmt.Errorf("%w: %s went away", ErrNotConnected, server)
	}
	return nil, errors.New("prompts/get: " + m.red.apply(shortError(err)))
}

// maxCompletions is how many values of a completion are kept (the spec's
// limit of one answer).
const maxCompletions = 100

// Complete asks a server for the values an argument of one of its prompts
// may take, starting with partial (completion/complete, ref/prompt);
// others are the arguments already given. A server that does not declare
// the completions capability is not asked: no values, no error. The
// values are redacted.
func (m *Manager) Complete(ctx context.Context, server, prompt, arg, partial string, others map[string]string) ([]string, error) {
	s, c, err := m.live(server)
	if err != nil {
		return nil, m.red.redactError(err)
	}
	if c.client.GetServerCapabilities().Completions == nil {
		return nil, nil
	}
	cctx, cancel := context.WithTimeout(ctx, min(s.cfg.timeout(), 10*time.Second))
	defer cancel()
	var req mcpgo.CompleteRequest
	req.Params.Ref = mcpgo.PromptReference{Type: "ref/prompt", Name: prompt}
	req.Params.Argument = mcpgo.CompleteArgument{Name: arg, Value: partial}
	if len(others) > 0 {
		req.Params.Context.Arguments = others
	}
	res, err := c.client.Complete(cctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: completion/complete: %s", server, m.red.apply(shortError(err)))
	}
	vals := res.Completion.Values
	if len(vals) > maxCompletions {
		vals = vals[:maxCompletions]
	}
	return redactAll(m.red, slices.Clone(vals)), nil
}
