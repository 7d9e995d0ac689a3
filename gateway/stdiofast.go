package gateway

// The stdio client's plain tool calls are answered here rather than by
// mcp-go's stdio server, which reads each line into a goroutine of its
// own and decodes it six times over (to check it is JSON, for the
// answers to its own requests, for its method, for the protocol era, for
// _meta, for the call) before the handler runs: about a third of latch's
// CPU per call. A plain call is decoded once, run by the same handler
// mcp-go would run (limits, gate, log line), and answered as mcp-go
// answers it; a call of the 2026-07-28 protocol (its protocol version,
// client and capabilities in _meta) as mcp-go takes one: the session
// takes its client's name and capabilities, the handler sees the era in
// its context, and the result says it is complete and names latch.
// Anything else goes to mcp-go untouched: a call of a tool not served
// (mcp-go's -32602), of latch_await_decision, with a progress token, with
// a _meta mcp-go would refuse or read as of an older protocol, a task, a
// multi-round-trip retry, arguments that are not an object, a call
// before the session is set up.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// plainCall is a tools/call request as read from the stdio client. The
// fields that send a call to mcp-go are read only to see that they are
// absent (encoding/json matches keys regardless of case, as mcp-go's
// decoding does).
type plainCall struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		// RawMeta is _meta as written; Meta is it decoded (metaOf).
		RawMeta        json.RawMessage `json:"_meta"`
		Meta           *mcpgo.Meta     `json:"-"`
		Task           json.RawMessage `json:"task"`
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	} `json:"params"`
	// era is what a 2026-07-28 call's _meta declares (nil for a call of
	// the handshake's protocol).
	era *server.RequestProtocolInfo
}

// plainCallOf reads line as a plain call of a served tool, or says it is
// not one (mcp-go answers it).
func (g *Gateway) plainCallOf(line []byte) (*plainCall, bool) {
	var m plainCall
	if json.Unmarshal(line, &m) != nil || m.JSONRPC != mcpgo.JSONRPC_VERSION || m.Method != string(mcpgo.MethodToolsCall) ||
		!scalarID(m.ID) || m.Result != nil || m.Error != nil || m.Params.Task != nil ||
		m.Params.InputResponses != nil || m.Params.RequestState != nil {
		return nil, false
	}
	if a := m.Params.Arguments; a != nil && (a[0] != '{' || !numbersFitFloat(a)) {
		// null, not an object, or a number mcp-go cannot read (past
		// float64's range): mcp-go's reading of it stands.
		return nil, false
	}
	if raw := m.Params.RawMeta; raw != nil && string(raw) != "null" {
		if m.Params.Meta, m.era = g.metaOf(raw); m.era == nil {
			return nil, false
		}
	}
	g.mu.Lock()
	_, served := g.served[m.Params.Name]
	g.mu.Unlock()
	return &m, served
}

// metaOf is a call's _meta (raw, not null) decoded, and the era it
// declares (nil when none a plain call may have: mcp-go answers it). The
// two are shared by the calls with the same _meta, and only read.
func (g *Gateway) metaOf(raw json.RawMessage) (*mcpgo.Meta, *server.RequestProtocolInfo) {
	if seen, ok := g.meta.load(raw); ok {
		return seen.meta, seen.era
	}
	meta := &mcpgo.Meta{}
	if json.Unmarshal(raw, meta) != nil {
		return nil, nil
	}
	era := modernEra(meta)
	if era != nil {
		g.meta.store(raw, metaSeen{meta: meta, era: era})
	}
	return meta, era
}

// modernEra says what protocol of the 2026-07-28 era a call's _meta
// declares, read as mcp-go reads it; nil when it declares none (or one
// mcp-go refuses), or carries a progress token (mcp-go answers those).
func modernEra(meta *mcpgo.Meta) *server.RequestProtocolInfo {
	if meta.ProgressToken != nil {
		return nil
	}
	v := meta.ProtocolVersion()
	caps := meta.ClientCapabilities()
	if !mcpgo.IsModernProtocol(v) || !mcpgo.IsValidProtocolVersion(v) || caps == nil {
		return nil
	}
	return &server.RequestProtocolInfo{Modern: true, ProtocolVersion: v, ClientInfo: meta.ClientInfo(),
		LogLevel: meta.LogLevel(), ClientCapabilities: caps}
}

// plainLine is line as a plain call to run here, with the context to run
// it in: the client's session's (sessionCtx), once set up.
func (g *Gateway) plainLine(line []byte, sessionCtx func() context.Context) (context.Context, *plainCall, bool) {
	if !bytes.Contains(line, []byte(mcpgo.MethodToolsCall)) {
		return nil, nil, false
	}
	ctx := sessionCtx()
	if ctx == nil || !plainSession(ctx) {
		return nil, nil, false
	}
	m, ok := g.plainCallOf(line)
	return ctx, m, ok
}

// scalarID says whether id is a JSON-RPC request id mcp-go would answer
// with itself: a number or a string.
func scalarID(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

// idKey is the key mcp-go gives a request id for notifications/cancelled:
// its value as fmt prints it, so that 1 and "1" are the same request.
func idKey(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	return fmt.Sprint(v)
}

// plainCalls runs the stdio client's plain calls on a fixed pool of
// workers, as mcp-go runs its tool calls, and can cancel one the client
// gives up (notifications/cancelled).
type plainCalls struct {
	g    *Gateway
	out  *lineWriter
	work chan plainWork
	wg   sync.WaitGroup

	mu sync.Mutex
	// inflight are the calls under way, by their ids as the client wrote
	// them (idKey says which one a cancel names).
	inflight map[string]context.CancelFunc
	stopped  bool
}

// plainWork is one call for a worker: the call and the client's session
// context.
type plainWork struct {
	ctx context.Context
	m   *plainCall
}

// plainQueue is how many calls wait for a worker before the reader runs
// one itself (mcp-go's queue size).
const plainQueue = 100

// startPlainCalls starts workers that run calls and write their answers
// to out.
func (g *Gateway) startPlainCalls(workers int, out *lineWriter) *plainCalls {
	p := &plainCalls{g: g, out: out, work: make(chan plainWork, plainQueue), inflight: map[string]context.CancelFunc{}}
	for range workers {
		p.wg.Go(func() {
			for w := range p.work {
				p.run(w)
			}
		})
	}
	return p
}

// take runs m in the client's session context: on a worker, or here when
// the queue is full (as mcp-go does). After stop, it is dropped: the input
// has ended.
func (p *plainCalls) take(ctx context.Context, m *plainCall) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	select {
	case p.work <- plainWork{ctx: ctx, m: m}:
		p.mu.Unlock()
	default:
		p.mu.Unlock()
		p.run(plainWork{ctx: ctx, m: m})
	}
}

// stop ends the pool once the input has ended: the calls under way are
// cancelled, as mcp-go cancels its own, and waited for.
func (p *plainCalls) stop() {
	p.mu.Lock()
	p.stopped = true
	close(p.work)
	for _, cancel := range p.inflight {
		cancel()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// cancelled cancels the call a notifications/cancelled line gives up, if
// it is one of these. (The line goes on to mcp-go all the same, for its
// own calls.)
func (p *plainCalls) cancelled(line []byte) {
	if !bytes.Contains(line, []byte(mcpgo.MethodNotificationCancelled)) {
		return
	}
	var n struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil || n.Method != string(mcpgo.MethodNotificationCancelled) || n.Params.RequestID == nil {
		return
	}
	key := idKey(n.Params.RequestID)
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, c := range p.inflight {
		if idKey(json.RawMessage(id)) == key {
			c()
			delete(p.inflight, id)
		}
	}
}

// run calls the tool's handler and writes the answer: its result, or the
// error mcp-go's recovery would give for a handler that panicked.
func (p *plainCalls) run(w plainWork) {
	p.g.plainRuns.Add(1)
	ctx, cancel := context.WithCancel(w.ctx)
	key := string(w.m.ID)
	p.mu.Lock()
	p.inflight[key] = cancel
	if p.stopped {
		cancel() // queued as the input ended: cancelled, as mcp-go's are
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.inflight, key)
		p.mu.Unlock()
		cancel()
	}()
	if w.m.era != nil {
		ctx = server.WithRequestProtocolInfo(ctx, w.m.era)
		takeEra(server.ClientSessionFromContext(ctx), w.m.era)
	}
	res, err := p.g.callPlain(ctx, w.m.request())
	var meta []byte
	if err == nil && w.m.era != nil {
		meta = p.g.completeEncoded(res)
	}
	_, _ = p.out.Write(plainAnswer(w.m.ID, res, meta, err))
}

// request is the call as mcp-go would hand it to the tool's handler. The
// arguments are decoded once, by the handler (arguments), from
// RawArguments: mcp-go's map of them is made only if it needs it.
func (m *plainCall) request() mcpgo.CallToolRequest {
	var req mcpgo.CallToolRequest
	req.Method = string(mcpgo.MethodToolsCall)
	req.Params.Name = m.Params.Name
	req.Params.Meta = m.Params.Meta
	req.Params.RawArguments = m.Params.Arguments
	return req
}

// plainAnswer is the answer to a plain call with the id id, as mcp-go
// writes it (mcp.JSONRPCResponse, mcp.JSONRPCError) and a newline: its
// result (its _meta encoded already when meta is not nil: resultJSON),
// or the error mcp-go's recovery gives a handler that panicked.
func plainAnswer(id []byte, res *mcpgo.CallToolResult, meta []byte, err error) []byte {
	var body []byte
	if err == nil {
		body, err = resultJSON(res, meta)
	}
	b := append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":`...)
	if err != nil {
		body, _ = json.Marshal(mcpgo.NewJSONRPCErrorDetails(mcpgo.INTERNAL_ERROR, err.Error(), nil))
		b = append(b[:len(b)-len(`"result":`)], `"error":`...)
	}
	return append(append(b, body...), "}\n"...)
}

// callPlain runs the served tool's handler as mcp-go's recovery wraps it:
// a panic is an error naming the tool.
func (g *Gateway) callPlain(ctx context.Context, req mcpgo.CallToolRequest) (res *mcpgo.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("panic recovered in %s tool handler: %v", req.Params.Name, r)
		}
	}()
	res, err = g.plain(ctx, req)
	if err == nil && res == nil {
		err = fmt.Errorf("tool %s returned no result", req.Params.Name)
	}
	return res, err
}

// plainSession says whether the stdio session in ctx has been set up
// (mcp-go answered the client's initialize, or took a 2026-07-28
// request): until then calls go to mcp-go.
func plainSession(ctx context.Context) bool {
	s := server.ClientSessionFromContext(ctx)
	return s != nil && s.Initialized()
}

// takeEra has the session take what a 2026-07-28 call says of its
// client, as mcp-go's does for each such request: its name and
// capabilities, and the session counts as set up.
func takeEra(s server.ClientSession, era *server.RequestProtocolInfo) {
	if s == nil {
		return
	}
	if withInfo, ok := s.(server.SessionWithClientInfo); ok {
		if era.ClientInfo != nil {
			withInfo.SetClientInfo(*era.ClientInfo)
		}
		withInfo.SetClientCapabilities(*era.ClientCapabilities)
	}
	if !s.Initialized() {
		s.Initialize()
	}
}

// complete marks a 2026-07-28 call's result as mcp-go does: complete
// (unless it says otherwise), and naming the server that gave it.
func (g *Gateway) complete(res *mcpgo.CallToolResult) {
	completeType(res)
	if meta := res.EnsureResultMeta(); meta != nil && meta.ServerInfo() == nil {
		meta.SetServerInfo(mcpgo.Implementation{Name: serverName, Version: g.o.Version})
	}
}

// completeEncoded marks res as complete does and returns its _meta
// encoded when it had none: the one complete gives it, the same bytes for
// every call, encoded once. Otherwise it returns nil, and res.Meta is
// encoded with the rest of the result.
func (g *Gateway) completeEncoded(res *mcpgo.CallToolResult) []byte {
	g.servedMetaOnce.Do(func() {
		var r mcpgo.CallToolResult
		g.complete(&r)
		g.servedMeta, _ = json.Marshal(r.Meta)
	})
	if res.Meta != nil || g.servedMeta == nil {
		g.complete(res)
		return nil
	}
	completeType(res)
	return g.servedMeta
}

// completeType gives res the result type complete, unless it has one.
func completeType(res *mcpgo.CallToolResult) {
	if res.GetResultType() == "" {
		res.SetResultType(mcpgo.ResultTypeComplete)
	}
}

// numbersFitFloat says whether mcp-go can read every number of the JSON
// object raw: a literal past float64's range (1e400) makes mcp-go refuse
// the whole request as unparsable, before its handler (and so the gate)
// sees it. Only a literal with an exponent or of more than 300 digits can
// be out of range; a line with none is not decoded again.
func numbersFitFloat(raw json.RawMessage) bool {
	inString, escaped, digits, risky := false, false, 0, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString, digits = true, 0
		case c >= '0' && c <= '9':
			if digits++; digits > 300 {
				risky = true
			}
		case (c == 'e' || c == 'E') && digits > 0:
			risky = true
		case c != '.' && c != '-' && c != '+':
			digits = 0
		}
		if risky {
			var v any
			return json.Unmarshal(raw, &v) == nil
		}
	}
	return true
}
