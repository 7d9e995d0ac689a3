package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// rename recomputes every model-facing tool name, servers in sorted order,
// so that names (and collision fix-ups) do not depend on which server
// connected first. It reports tools whose definition changed.
func (m *Manager) rename() {
	m.renameMu.Lock()
	defer m.renameMu.Unlock()
	names := map[string]toolRef{}
	taken := map[string]bool{}
	for _, n := range m.order {
		s := m.servers[n]
		s.mu.Lock()
		tools := s.tools
		s.mu.Unlock()
		originals := make([]string, len(tools))
		for i, t := range tools {
			originals[i] = t.Name
		}
		assigned := assignNames(n, originals, taken, m.order)
		for _, t := range tools {
			name := assigned[t.Name]
			tool := convertTool(n, name, t)
			// What the model and the screen read of a tool, redacted;
			// the names stay as they are, to call it by.
			tool.Title, tool.Description = m.red.apply(tool.Title), m.red.apply(tool.Description)
			tool.InputSchema = redactAll(m.red, tool.InputSchema)
			tool.OutputSchema = redactAll(m.red, tool.OutputSchema)
			tool.Annotations.Title = m.red.apply(tool.Annotations.Title)
			names[name] = toolRef{server: s, tool: tool, headers: headerBindings(t)}
		}
	}
	m.mu.Lock()
	m.names = names
	m.mu.Unlock()
}

// Tools lists every tool of every connected server, by model-facing name.
func (m *Manager) Tools() []Tool {
	m.mu.Lock()
	out := make([]Tool, 0, len(m.names))
	for _, r := range m.names {
		out = append(out, r.tool)
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ServerTools lists one server's tools.
func (m *Manager) ServerTools(name string) ([]Tool, error) {
	if _, err := m.get(name); err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range m.Tools() {
		if t.Server == name {
			out = append(out, t)
		}
	}
	return out, nil
}

// Lookup finds a tool by its model-facing name.
func (m *Manager) Lookup(name string) (Tool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.names[name]
	return r.tool, ok
}

// Errors of Call, for callers that tell them apart.
var (
	ErrUnknownTool  = errors.New("no such tool")
	ErrNotConnected = errors.New("server not connected")
	ErrTimeout      = errors.New("tool call timed out")
	ErrCancelled    = errors.New("tool call cancelled")
)

// Call runs a tool by its model-facing name with the server's timeout; a
// call that runs as a task (calltask.go) has it on each of its requests,
// and runs as long as its task does.
// callID tags its progress events. The error, if any, is written for the
// user and the model, with credentials redacted; an isError result is not
// an error.
func (m *Manager) Call(ctx context.Context, name string, args map[string]any, callID string) (*Result, error) {
	res, err := m.call(ctx, name, args, callID)
	if err != nil {
		return nil, m.red.redactError(err)
	}
	return res, nil
}

// call is Call before its error is redacted (its result already is).
func (m *Manager) call(ctx context.Context, name string, args map[string]any, callID string) (*Result, error) {
	ref, c, err := m.target(name)
	if err != nil {
		return nil, err
	}
	s := ref.server
	if asTask(s, c, ref.tool.Original) {
		return m.callTask(ctx, ref, c, args, callID)
	}
	timeout := s.cfg.timeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req := callRequest(ref.tool.Original, args, callID)
	if c.paramHeaders() {
		// Refused here, before anything is sent, when an argument
		// cannot be its header.
		if req.Header, err = callHeaders(name, ref.headers, args); err != nil {
			return nil, err
		}
	}
	running := m.startCall(callID, cancel)
	var res *mcpgo.CallToolResult
	if c.plainStdio() {
		res, err = c.callStdio(cctx, req)
	} else {
		res, err = c.client.CallTool(cctx, req)
	}
	stopped := m.endCall(callID, running)
	if err == nil {
		return convertResult(res, m.opts.MaxResultBytes, m.red), nil
	}
	return nil, m.callError(ctx, cctx, stopped, err, ref, c, timeout)
}

// callError is what a failed call means for the person and the model:
// stopped (by CancelCalls or ctx), timed out (cctx, after timeout), the
// credential refused, the server gone, or the server's own error.
func (m *Manager) callError(ctx, cctx context.Context, stopped bool, err error, ref toolRef, c *conn, timeout time.Duration) error {
	s, name := ref.server, ref.tool.Name
	switch {
	case stopped || ctx.Err() != nil:
		return fmt.Errorf("%w: %s", ErrCancelled, name)
	case errors.Is(err, ErrTimeout):
		return err
	case errors.Is(cctx.Err(), context.DeadlineExceeded) || pastDeadline(cctx):
		return fmt.Errorf("%w: %s gave no result within %s", ErrTimeout, name, timeout)
	case c.isAuthError(err):
		m.authExpired(s, c)
		return fmt.Errorf("%w: %s %s", ErrNotConnected, s.cfg.Name, m.authLost(s))
	case errors.Is(err, transport.ErrTransportClosed):
		return fmt.Errorf("%w: %s went away during the call", ErrNotConnected, s.cfg.Name)
	}
	return errors.New(shortError(err))
}

// target finds the tool a model-facing name names, and the live
// connection of its server.
func (m *Manager) target(name string) (toolRef, *conn, error) {
	m.mu.Lock()
	ref, ok := m.names[name]
	m.mu.Unlock()
	if !ok {
		// A server that is not connected offers no tools; say that
		// rather than "no such tool" for the tools it had.
		if s := m.serverOfTool(name); s != nil {
			if st := s.snapshot(); st.State != StateConnected {
				return toolRef{}, nil, fmt.Errorf("%w: %s is %s", ErrNotConnected, s.cfg.Name, st.Summary())
			}
		}
		return toolRef{}, nil, fmt.Errorf("%w: %s", ErrUnknownTool, name)
	}
	s := ref.server
	s.mu.Lock()
	c := s.conn
	st := s.status
	s.mu.Unlock()
	if c == nil {
		return toolRef{}, nil, fmt.Errorf("%w: %s is %s", ErrNotConnected, s.cfg.Name, st.Summary())
	}
	return ref, c, nil
}

// callRequest is the tools/call request for the server's tool; a call id
// is its progress token.
func callRequest(tool string, args map[string]any, callID string) mcpgo.CallToolRequest {
	var req mcpgo.CallToolRequest
	req.Params.Name = tool
	if args == nil {
		args = map[string]any{}
	}
	req.Params.Arguments = args
	if callID != "" {
		req.Params.Meta = &mcpgo.Meta{ProgressToken: callID}
	}
	return req
}

// startCall registers a call with a call id as running, for CancelCalls;
// a call without one is not registered (nil).
func (m *Manager) startCall(callID string, cancel context.CancelFunc) *call {
	if callID == "" {
		return nil
	}
	running := &call{cancel: cancel}
	m.mu.Lock()
	m.calls[callID] = running
	m.mu.Unlock()
	return running
}

// endCall unregisters a call startCall registered, and reports whether
// CancelCalls stopped it.
func (m *Manager) endCall(callID string, running *call) (stopped bool) {
	if running == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.calls, callID)
	return running.cancelled
}

// CancelCalls cancels every running call that has a call id (Esc while a
// tool runs): each returns ErrCancelled, and stdio servers are told. It
// reports how many it cancelled.
func (m *Manager) CancelCalls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.calls {
		c.cancelled = true
		c.cancel()
	}
	return len(m.calls)
}

// pastDeadline reports whether ctx's deadline has passed. mcp-go's SSE
// transport arms its own timer for the time ctx has left and may fail the
// call ("timeout waiting for SSE response") before ctx's timer has fired,
// so ctx.Err() can still be nil then.
func pastDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// serverOfTool finds the server a model-facing tool name is prefixed with
// ("<server>__…"), the longest such name if several match, or nil.
func (m *Manager) serverOfTool(tool string) *server {
	var best *server
	for _, n := range m.order {
		if strings.HasPrefix(tool, n+Separator) && (best == nil || len(n) > len(best.cfg.Name)) {
			best = m.servers[n]
		}
	}
	return best
}

// authExpired marks a server whose credential was refused.
func (m *Manager) authExpired(s *server, c *conn) {
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	s.conn = nil
	s.tools = nil
	gen := s.gen
	s.mu.Unlock()
	m.rename()
	go c.close()
	reason := m.authLost(s)
	if s.auth != nil {
		reason = s.auth.Reason()
	}
	m.fail(s, gen, StateAuthExpired, reason, "", nil)
}

// notification handles a server's notification. It runs on the
// transport's read loop, so it never calls the server itself: a tool list
// refresh happens in a goroutine (docs/ARCHITECTURE.md, "mcp-go").
func (m *Manager) notification(s *server, gen int, n mcpgo.JSONRPCNotification) {
	switch n.Method {
	case mcpgo.MethodNotificationToolsListChanged:
		m.requestRefresh(s, gen)
	case mcpgo.MethodNotificationPromptsListChanged:
		m.requestPrompts(s, gen)
	case mcpgo.MethodNotificationResourceUpdated, mcpgo.MethodNotificationResourcesListChanged:
		m.resourceNote(s, gen, n)
	case string(mcpgo.MethodNotificationProgress):
		p := n.Params.AdditionalFields
		tok := fmt.Sprint(p["progressToken"])
		m.mu.Lock()
		_, ours := m.calls[tok]
		m.mu.Unlock()
		if !ours {
			return
		}
		ev := Progress{Server: s.cfg.Name, CallID: tok, Progress: num(p["progress"]), Total: num(p["total"])}
		if msg, ok := p["message"].(string); ok {
			ev.Message = msg
		}
		m.emit(ev)
	case string(mcpgo.MethodNotificationMessage):
		p := n.Params.AdditionalFields
		level := fmt.Sprint(p["level"])
		text := fmt.Sprint(p["data"])
		if lg, ok := p["logger"].(string); ok && lg != "" {
			text = lg + ": " + text
		}
		text = m.red.apply(text)
		if len(text) > maxLogLine {
			text = m.red.cut(text, maxLogLine) + "…"
		}
		s.log.add(level + ": " + text)
		m.emit(LogLine{Server: s.cfg.Name, Source: level, Text: text})
	}
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return 0
}

// requestRefresh asks for the server's tool list to be refreshed,
// coalesced per connection (see coalescer). It never blocks: it runs on
// the transport's read loop.
func (m *Manager) requestRefresh(s *server, gen int) {
	if !s.live(gen) {
		return
	}
	s.toolsRefresh.request(gen, func() bool { return s.live(gen) }, func() bool { return m.refresh(s, gen) })
}

// live reports whether gen is still the server's connection.
func (s *server) live(gen int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen == gen
}

// refresh lists a server's tools again after tools/list_changed. It
// reports a change (ToolsChanged, then the status with the new count) only
// when the tool set's digest changed: a tool added, removed or redefined.
// It returns true when the connection is not up yet, to be tried again.
func (m *Manager) refresh(s *server, gen int) (retry bool) {
	s.mu.Lock()
	c := s.conn
	cur := s.gen == gen
	connecting := s.status.State == StateConnecting
	s.mu.Unlock()
	if !cur {
		return false
	}
	if c == nil {
		return connecting
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.timeout())
	defer cancel()
	tools, err := listTools(ctx, c)
	if err != nil {
		s.log.add("latch: refreshing the tool list failed: " + m.red.apply(shortError(err)))
		return false
	}
	before := m.toolsOf(s.cfg.Name)
	st, replaced := s.replaceTools(gen, c, tools)
	if !replaced {
		return false
	}
	m.rename()
	after, _ := m.ServerTools(s.cfg.Name)
	ev := toolsChanged(s.cfg.Name, len(tools), before, after)
	if len(ev.Changed) == 0 && len(ev.Removed) == 0 && len(after) == len(before) {
		return false // the same tools as the model sees them
	}
	s.log.add(fmt.Sprintf("latch: tool list changed: %d tools", len(tools)))
	m.emit(ev)
	m.emit(StatusChanged{Status: st})
	return false
}

// toolsOf is the tools of one server as the model sees them, by name.
func (m *Manager) toolsOf(server string) map[string]Tool {
	out := map[string]Tool{}
	for _, t := range m.Tools() {
		if t.Server == server {
			out[t.Name] = t
		}
	}
	return out
}

// replaceTools makes tools the server's tool list, if c is still its
// connection (gen) and the list differs, and returns the new status.
func (s *server) replaceTools(gen int, c *conn, tools []mcpgo.Tool) (Status, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen || s.conn != c || sameTools(s.tools, tools) {
		return Status{}, false
	}
	s.tools = tools
	s.status.Tools = len(tools)
	return s.status, true
}

// toolsChanged is the ToolsChanged of a server whose tools, as the model
// sees them, went from before to after.
func toolsChanged(server string, count int, before map[string]Tool, after []Tool) ToolsChanged {
	ev := ToolsChanged{Server: server, Tools: count}
	seen := map[string]bool{}
	for _, t := range after {
		seen[t.Name] = true
		if old, ok := before[t.Name]; ok && old.Digest != t.Digest {
			ev.Changed = append(ev.Changed, t.Name)
		}
	}
	for name := range before {
		if !seen[name] {
			ev.Removed = append(ev.Removed, name)
		}
	}
	sort.Strings(ev.Removed)
	return ev
}

// sameTools reports whether two tool lists hold the same tools with the
// same definitions, in any order.
func sameTools(a, b []mcpgo.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	digests := make(map[string]string, len(a))
	for _, t := range a {
		digests[t.Name] = digest(t)
	}
	if len(digests) != len(a) {
		return false // a server that lists a name twice: compare the slow way
	}
	for _, t := range b {
		if d, ok := digests[t.Name]; !ok || d != digest(t) {
			return false
		}
		delete(digests, t.Name)
	}
	return len(digests) == 0
}
