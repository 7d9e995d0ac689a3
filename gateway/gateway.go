// Package gateway serves the tools of a session's MCP servers to other MCP
// clients (latch serve), under their model-facing names: every call goes
// through the session's permission gate, exactly as the model's calls do.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/session"
	"latch/ui/sanitize"
)

// Options configure a Gateway.
type Options struct {
	// Session holds the servers and the gate, its servers' first connect
	// over (WaitServers) before New. NonInteractive (latch serve), a call
	// that would ask a person parks; a chat's (latch --serve), it is asked
	// in the chat for up to AwaitPoll, then parks.
	Session *session.Session
	// Expose limits what is served: servers' names and server__tool
	// names. Nil serves every tool.
	Expose []string
	// Log gets one line per call (client, tool, decision, duration); nil
	// logs nothing.
	Log io.Writer
	// JSON writes Log's lines as JSON objects, one a line (--json).
	JSON bool
	// Limits bound each client's calls; DefaultLimits where unset.
	Limits Limits
	// Now is the clock of the rate limits; time.Now when nil.
	Now func() time.Time
	// Version is latch's, for the handshake.
	Version string
	// ParkUnlisted parks a call of an unlisted tool in read_only mode
	// rather than refusing it (serve.park_unlisted).
	ParkUnlisted bool
	// TTL is how long a parked call waits for a person
	// (serve.approval_ttl); session.DefaultApprovalTTL when 0.
	TTL time.Duration
	// AwaitPoll bounds one latch_await_decision (serve.await_poll), and
	// how long a call is asked in the chat before it parks;
	// DefaultAwaitPoll when 0.
	AwaitPoll time.Duration
	// OnClients, when set, is told how many clients hold a session with
	// the gateway each time one comes or goes.
	OnClients func(n int)
	// NotifyCommand is serve.notify_command: run once per parked call
	// (notify.go); nil runs nothing.
	NotifyCommand []string
	// As names the client over stdio (latch serve --stdio --as NAME):
	// a claim of whoever started latch, which the gate takes as
	// unverified (permissions.CallClient). "" names none.
	As string
	// LeftOut are the configured servers latch did not load (an
	// ${input:…} value no one could give), by name: why. The
	// instructions name them.
	LeftOut map[string]string
}

// serverName is the gateway's name as an MCP server (its serverInfo).
const serverName = "latch"

// DefaultAwaitPoll is how long one latch_await_decision waits at most.
const DefaultAwaitPoll = 20 * time.Second

// Gateway is the MCP server side of latch serve.
type Gateway struct {
	o   Options
	srv *server.MCPServer
	lim *limiter
	pq  *parkQuota
	// notify runs serve.notify_command (notify.go); nil without one.
	notify *notifier

	mu     sync.Mutex
	served map[string]string // the tools served: name → definition digest
	parks  map[string]bool   // the served tools whose calls park
	// headed are the served tools whose input schema binds arguments to
	// headers (x-mcp-header): mcp-go checks their calls' headers
	// (httpfast.go).
	headed map[string]bool
	hinted map[string]bool // the tools whose refusal said how to make it wait (waitHint)
	logMu  sync.Mutex
	tasks  taskTable // the tasks of calls that did not park (tasks.go)

	clients atomic.Int64 // clients holding a session (OnClients)
	// plain is the handler of a served tool's call, as registered with
	// mcp-go: the stdio client's plain calls run it directly (stdiofast.go).
	plain     server.ToolHandlerFunc
	plainRuns atomic.Int64 // the calls it ran so (for the tests)
	// meta are the _meta of the plain calls of the 2026-07-28 protocol,
	// decoded, one per client seen (metaOf).
	meta metaMemo
	// servedMeta is the _meta complete gives a result without one,
	// encoded once (completeEncoded).
	servedMeta     []byte
	servedMetaOnce sync.Once
}

// New builds the gateway's MCP server with the session's exposed tools as
// they are now. Its instructions name every server that is not connected,
// so that a client is told why its tools are missing.
func New(o Options) *Gateway {
	g := &Gateway{o: o, lim: newLimiter(o.Limits, o.Now), pq: newParkQuota(o.Limits), tasks: newTaskTable(o.Limits.withDefaults()),
		notify: newNotifier(o.NotifyCommand)}
	g.plain = g.handle(false, g.call)
	hooks := &server.Hooks{}
	hooks.AddOnError(g.unknownCall)
	hooks.AddAfterListTools(g.markTaskTools)
	if o.OnClients != nil {
		hooks.AddOnRegisterSession(func(context.Context, server.ClientSession) { o.OnClients(int(g.clients.Add(1))) })
		hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { o.OnClients(int(g.clients.Add(-1))) })
	}
	g.srv = server.NewMCPServer(serverName, o.Version,
		server.WithToolCapabilities(true),
		// Tasks are answered by the gateway (taskroute.go), not by
		// mcp-go's store; tasks/list is not served.
		server.WithTaskCapabilities(false, true, true),
		server.WithInstructions(g.instructions()),
		server.WithHooks(hooks),
		server.WithRecovery())
	g.sync()
	return g
}

// MCPServer is the gateway's mcp-go server. Serve it with ServeStdio or
// ServeHTTP, which answer the MCP task methods before it: served as it is,
// a task-capable client's task requests would meet mcp-go's own task store,
// which knows no parked call.
func (g *Gateway) MCPServer() *server.MCPServer { return g.srv }

// Follow keeps the served tools in step with the session's servers until
// ctx ends or the session closes: a tool added, removed or redefined
// upstream is served so, and clients get notifications/tools/list_changed.
func (g *Gateway) Follow(ctx context.Context, sub *session.Sub) {
	for {
		evs, ok := sub.Next(ctx)
		if !ok {
			return
		}
		for _, e := range evs {
			switch e.(type) {
			case *session.ToolsChangedEvent, *session.ServerStatusEvent:
				g.sync()
			}
		}
	}
}

// instructions say what the gateway serves, and which servers are not
// connected and why.
func (g *Gateway) instructions() string {
	var b strings.Builder
	b.WriteString("latch: the tools of latch's MCP servers, each call through latch's permission gate. " +
		"A call the gate refuses returns an error result saying why.")
	for _, st := range g.o.Session.Servers() {
		if st.State == session.StateConnected || !g.exposesServer(st.Name) {
			continue
		}
		fmt.Fprintf(&b, "\nServer %s is not connected (%s): its tools are not served.", st.Name, sanitize.Line(st.Summary()))
	}
	for _, name := range slices.Sorted(maps.Keys(g.o.LeftOut)) {
		if g.exposesServer(name) {
			fmt.Fprintf(&b, "\nServer %s is not loaded (%s): its tools are not served.", sanitize.Line(name), sanitize.Line(g.o.LeftOut[name]))
		}
	}
	return b.String()
}

// exposesServer says whether anything of server may be served.
func (g *Gateway) exposesServer(server string) bool {
	if g.o.Expose == nil {
		return true
	}
	for _, e := range g.o.Expose {
		if s, _, _ := strings.Cut(e, "__"); s == server {
			return true
		}
	}
	return false
}

// exposes says whether the tool may be served.
func (g *Gateway) exposes(t session.Tool) bool {
	return g.o.Expose == nil || slices.Contains(g.o.Expose, t.Server) || slices.Contains(g.o.Expose, t.Name)
}

// sync serves the exposed tools of the session's connected servers, when
// they differ from those served.
func (g *Gateway) sync() {
	tools, _ := g.o.Session.Tools("")
	want, parking, headed := map[string]string{}, map[string]bool{}, map[string]bool{}
	var serve []server.ServerTool
	for _, t := range tools {
		if !g.exposes(t) {
			continue
		}
		parks := g.o.Session.GatewayParks(t.Name, g.o.ParkUnlisted)
		want[t.Name] = t.Digest + fmt.Sprint(parks)
		parking[t.Name] = parks
		tool := toolOf(t, parks)
		if len(mcpgo.ExtractParamHeaderBindings(&tool)) > 0 {
			headed[t.Name] = true
		}
		serve = append(serve, server.ServerTool{Tool: tool, Handler: g.handle(false, g.call)})
	}
	serve = append(serve, server.ServerTool{Tool: awaitTool(), Handler: g.handle(true, g.await)})
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.served != nil && mapsEqual(g.served, want) {
		return
	}
	g.served, g.parks, g.headed = want, parking, headed
	g.srv.SetTools(serve...)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// toolOf is a session tool as the gateway serves it: its model-facing
// name, and its description, schemas and annotations as its server gave
// them (redacted). A tool whose calls park is served without its output
// schema, which the awaiting result would not match (clients check it),
// and its description says so.
func toolOf(t session.Tool, parks bool) mcpgo.Tool {
	out := mcpgo.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
		Annotations: mcpgo.ToolAnnotation{Title: t.Annotations.Title, ReadOnlyHint: t.Annotations.ReadOnlyHint,
			DestructiveHint: t.Annotations.DestructiveHint, IdempotentHint: t.Annotations.IdempotentHint,
			OpenWorldHint: t.Annotations.OpenWorldHint}}
	schema := t.InputSchema
	if len(schema) == 0 {
		schema = map[string]any{"type": "object"}
	}
	out.RawInputSchema, _ = json.Marshal(schema)
	switch {
	case parks:
		out.Description = strings.TrimSpace(out.Description + "\n\n" + parkNote)
	case t.OutputSchema != nil:
		out.RawOutputSchema, _ = json.Marshal(t.OutputSchema)
	}
	return out
}

// handle is a tool handler of the gateway's: h runs within the client's
// limits (those of polls, with poll), and the call is logged in one line
// when it ends.
func (g *Gateway) handle(poll bool, h func(context.Context, mcpgo.CallToolRequest, *callLine) (*mcpgo.CallToolResult, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		start := time.Now()
		caller, says := g.caller(ctx), clientName(ctx)
		client := clientLabel(caller, says)
		line := callLine{Client: client, Caller: caller, Says: says, Tool: req.Params.Name}
		defer func() {
			line.Duration = time.Since(start)
			g.logLine(line)
		}()
		release, refusal := g.lim.acquire(clientKey(ctx), client, poll)
		if refusal != "" {
			line.Decision, line.Error = DecisionLimited, refusal
			return errorResult(refusal), nil
		}
		defer release()
		return h(ctx, req, &line)
	}
}

// call takes a client's call, within its limits (handle), through the
// session's gate.
func (g *Gateway) call(ctx context.Context, req mcpgo.CallToolRequest, line *callLine) (*mcpgo.CallToolResult, error) {
	client, name := line.Client, req.Params.Name
	g.mu.Lock()
	_, served := g.served[name]
	g.mu.Unlock()
	if !served {
		line.Decision = session.GatewayUnknown
		return errorResult(goneTool(name)), nil
	}
	out := g.o.Session.GatewayCall(ctx, session.GatewayCall{Client: client, Caller: line.Caller, Name: name, Arguments: arguments(req),
		ParkUnlisted: g.o.ParkUnlisted, TTL: g.o.TTL, Progress: g.progressTo(ctx, req),
		Ask: g.awaitPoll(), Admit: func(size int64) (func(), string) { return g.pq.admit(g.quotaKey(ctx), client, size) }})
	if out.Decision == session.GatewayLimited {
		line.Decision, line.Error = DecisionLimited, out.Reason
		return errorResult(out.Reason), nil
	}
	line.outcomeOf(out)
	noteTaskOutcome(ctx, out)
	switch {
	case out.Decision == session.GatewayUnknown:
		return errorResult(goneTool(name)), nil
	case out.Decision == session.GatewayDenied:
		return errorResult("denied: " + out.Reason + g.waitHint(name, out)), nil
	case out.Decision == session.GatewayParked:
		g.parked(out, client, name)
		return awaitingResult(out), nil
	case out.Result == nil:
		return errorResult(out.Error), nil
	}
	return resultOf(out.Result), nil
}

// markTaskTools lists the tools whose calls park as taskSupport
// "optional", for clients of the 2025-11-25 protocol: such a call may be
// made as a task. They are registered with mcp-go without it, so that
// mcp-go never runs one as a task of its own (taskroute.go).
func (g *Gateway) markTaskTools(ctx context.Context, _ any, _ *mcpgo.ListToolsRequest, res *mcpgo.ListToolsResult) {
	if res == nil || server.IsModernRequest(ctx) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range res.Tools {
		if g.parks[res.Tools[i].Name] {
			res.Tools[i].Execution = &mcpgo.ToolExecution{TaskSupport: mcpgo.TaskSupportOptional}
		}
	}
}

// goneTool says why a tool that was served, and listed to the client, is
// not there now. (A name never served gets mcp-go's JSON-RPC error
// -32602, as the MCP spec has it for an unknown tool; this one the client
// was told of, so it learns what became of it as a tool error.)
func goneTool(name string) string {
	return fmt.Sprintf("no tool %s now: its server is not connected, or no longer has it; "+
		"latch serves the tools tools/list lists", quote(name))
}

// unknownCall logs a call of a tool that is not served (mcp-go answers
// it, before any handler).
func (g *Gateway) unknownCall(ctx context.Context, _ any, method mcpgo.MCPMethod, message any, err error) {
	if method != mcpgo.MethodToolsCall || !errors.Is(err, server.ErrToolNotFound) {
		return
	}
	name := ""
	if req, ok := message.(*mcpgo.CallToolRequest); ok {
		name = req.Params.Name
	}
	g.logCall(clientLabel(g.caller(ctx), clientName(ctx)), name, session.GatewayUnknown, 0)
}

// errorResult is a tool error the client reads.
func errorResult(msg string) *mcpgo.CallToolResult {
	return mcpgo.NewToolResultError(msg)
}

// resultOf is the upstream result as the server sent it (redacted):
// every content part, the structured content, isError.
func resultOf(r *session.CallResult) *mcpgo.CallToolResult {
	out := &mcpgo.CallToolResult{IsError: r.IsError, StructuredContent: r.Structured, Content: []mcpgo.Content{}}
	for _, part := range r.Content {
		c, err := mcpgo.ParseContent(part)
		if err != nil {
			continue
		}
		out.Content = append(out.Content, c)
	}
	return out
}

// clientName is the calling client's clientInfo name, or "?".
func clientName(ctx context.Context) string {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if n := s.GetClientInfo().Name; n != "" {
			return n
		}
	}
	return "?"
}

// logCall writes the call's line: client, tool, decision, duration (see
// logLine).
func (g *Gateway) logCall(client, tool, decision string, d time.Duration) {
	g.logLine(callLine{Client: client, Tool: tool, Decision: decision, Duration: d})
}

// LogDecision writes the line of a decision sent from another terminal
// (session.WatchInbox): applied, or why not.
func (g *Gateway) LogDecision(d session.Decision, err error) {
	if g.o.Log == nil {
		return
	}
	what := "rejected"
	if d.Approve {
		what = "approved"
	}
	line := fmt.Sprintf("%s %s by %s", d.InvocationID, what, d.By)
	fields := map[string]any{"invocation_id": d.InvocationID, "decision": what, "by": d.By}
	if err != nil {
		line = fmt.Sprintf("decision on %s by %s not applied: %v", d.InvocationID, d.By, err)
		fields["error"] = err.Error()
	}
	g.logMu.Lock()
	defer g.logMu.Unlock()
	LogEvent(g.o.Log, g.o.JSON, "decision", line, fields)
}
