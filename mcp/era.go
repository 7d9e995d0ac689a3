package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// The protocol eras a server may be pinned to (ServerConfig.Protocol).
const (
	// ProtocolAuto asks the server for the newest era it speaks
	// (server/discover) and falls back to the handshake of the last
	// legacy one. It is the default.
	ProtocolAuto = "auto"
	// ProtocolLegacy is the last era with the initialize handshake: no
	// probe is sent.
	ProtocolLegacy = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	// ProtocolModern is the stateless era (server/discover, _meta on each
	// request): a server that does not speak it fails to connect.
	ProtocolModern = mcpgo.ProtocolVersion20260728
)

// discoverWait is how long an auto connect waits for the answer to its
// server/discover probe before taking the server for a legacy one — over
// stdio, from the moment the server is seen to have read it (probeStdio).
// A legacy server answers an unknown method at once ("method not found");
// this bounds the cost of one that ignores it (mcp-go's default is 5 s).
const discoverWait = 250 * time.Millisecond

// eraOptions are the client options and the version asked for in the
// initialize request that make a connect speak the era cfg.Protocol
// names.
func eraOptions(cfg ServerConfig) ([]client.ClientOption, string) {
	switch {
	case cfg.Protocol == ProtocolLegacy || cfg.Transport == TransportSSE:
		// The stateless era has no HTTP+SSE transport.
		return []client.ClientOption{client.WithProtocolVersion(ProtocolLegacy)}, ProtocolLegacy
	case cfg.Protocol == ProtocolModern:
		// The probe is bounded by the connect timeout alone.
		return []client.ClientOption{client.WithProtocolVersion(ProtocolModern), client.WithDiscoverTimeout(-1)}, ProtocolModern
	}
	if cfg.Transport == TransportHTTP {
		// Over HTTP every request is answered (a legacy server refuses
		// the method at once, with an error or a 4xx): the wait covers
		// the network and a busy server, not one that ignores the probe.
		// A short one would take a distant or loaded modern server for a
		// legacy one.
		return []client.ClientOption{client.WithDiscoverTimeout(discoverWaitHTTP)}, ""
	}
	if cfg.Transport == TransportStdio {
		// The probe bounds itself: a server still starting is waited for
		// (eraprobe.go).
		return []client.ClientOption{client.WithDiscoverTimeout(-1)}, ""
	}
	return []client.ClientOption{client.WithDiscoverTimeout(discoverWait)}, ""
}

// discoverWaitHTTP bounds an auto connect's probe over streamable HTTP.
const discoverWaitHTTP = 5 * time.Second

// isModern reports whether a negotiated protocol version is of the
// stateless era.
func isModern(version string) bool { return mcpgo.IsModernProtocol(version) }

// eitherEraHTTP is a streamable HTTP transport with its listening GET
// stream on, which mcp-go's client would take as ruling out the stateless
// era: the transport itself opens that stream only on a legacy
// connection, so both eras stay open to negotiation. Its discover answers
// are checked (checkDiscover).
//
// A probe the server refused for want of authorization (401) is the
// answer to the handshake too: mcp-go would fall back to initialize on
// any probe error, and the login or grant behind the refusal would be
// tried a second time (a workload's refused JWT sent twice).
type eitherEraHTTP struct {
	*transport.StreamableHTTP
	auto bool // the protocol is chosen by the probe (tasksLegacy)

	mu        sync.Mutex
	probeAuth error // the probe's refusal for want of authorization
}

// RequiresLegacyProtocol is false: see eitherEraHTTP.
func (*eitherEraHTTP) RequiresLegacyProtocol() bool { return false }

// SendRequest sends req, checking a server/discover answer.
func (t *eitherEraHTTP) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	t.mu.Lock()
	refused := t.probeAuth
	t.probeAuth = nil
	t.mu.Unlock()
	if refused != nil && req.Method == string(mcpgo.MethodInitialize) {
		return nil, refused
	}
	resp, err := t.StreamableHTTP.SendRequest(ctx, req)
	if err == nil && refusedSupportedVersion(resp) {
		resp, err = t.StreamableHTTP.SendRequest(ctx, req)
	}
	var authErr *transport.AuthorizationRequiredError
	var oauthErr *transport.OAuthAuthorizationRequiredError
	if req.Method == string(mcpgo.MethodServerDiscover) && (errors.As(err, &authErr) || errors.As(err, &oauthErr)) {
		t.mu.Lock()
		t.probeAuth = err
		t.mu.Unlock()
	}
	return checkDiscover(req, resp, err, t.auto)
}

// refusedSupportedVersion reports whether resp refuses the request's
// protocol version (-32022) while naming that same version among those
// the server supports: the version is the right one, and the request is
// sent once more as it was (the spec's retry at a supported version).
// mcp-go renegotiates only when the server names another version, and
// otherwise takes the refusal of its server/discover probe for a legacy
// server: a stateless server that refused the first request (a node
// restarting behind a balancer) would be spoken to with the handshake it
// does not know, and fail.
func refusedSupportedVersion(resp *transport.JSONRPCResponse) bool {
	if resp == nil || resp.Error == nil || resp.Error.Code != mcpgo.UNSUPPORTED_PROTOCOL_VERSION {
		return false
	}
	var refused mcpgo.UnsupportedProtocolVersionError
	if !errors.As(resp.Error.AsError(), &refused) {
		return false
	}
	return refused.Version != "" && slices.Contains(refused.Supported, refused.Version)
}

// checkedStdio is a stdio transport whose discover answers are checked.
type checkedStdio struct {
	*transport.Stdio
	auto bool // the protocol is chosen by the probe (tasksLegacy)
}

// SendRequest sends req; server/discover is probed (probeStdio).
func (t checkedStdio) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if req.Method == string(mcpgo.MethodServerDiscover) {
		return probeStdio(ctx, t.Stdio, req, t.auto)
	}
	resp, err := t.Stdio.SendRequest(ctx, req)
	return checkDiscover(req, resp, err, t.auto)
}

// checkedInProcess is an in-process transport whose discover answers are
// checked, and whose requests reach the server with none of the caller's
// context values: mcp-go's server reads a request's HTTP headers from its
// context, so a call made while serving another HTTP request (latch
// serve's) would be checked against that request's Mcp-Name and
// Mcp-Method headers on the 2026-07-28 era, and refused.
type checkedInProcess struct {
	*transport.InProcessTransport
	auto bool // the protocol is chosen by the probe (tasksLegacy)
}

// SendRequest sends req, checking a server/discover answer.
func (t checkedInProcess) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	ctx, cancel := valuesDropped(ctx)
	defer cancel()
	resp, err := t.InProcessTransport.SendRequest(ctx, req)
	return checkDiscover(req, resp, err, t.auto)
}

// valuesDropped is a context ended with ctx (its deadline, its
// cancellation) but carrying none of its values.
func valuesDropped(ctx context.Context) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancelCause(context.Background())
	if d, ok := ctx.Deadline(); ok {
		var stopDeadline context.CancelFunc
		out, stopDeadline = context.WithDeadline(out, d)
		stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
		return out, func() { stop(); stopDeadline(); cancel(nil) }
	}
	stop := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	return out, func() { stop(); cancel(nil) }
}

// checkDiscover turns an answer to server/discover that names no
// stateless-era version into "method not found": mcp-go takes any result
// for the server speaking that era, and a legacy server that answers
// every unknown method with an empty result (the conformance suite's do)
// would be spoken to in an era it does not know. So mcp-go falls back to
// the handshake, as for a server that refused the probe. With auto
// (the era left to the probe), so is an answer of a server that runs
// tools as tasks and speaks 2025-11-25 too (tasksLegacy).
func checkDiscover(req transport.JSONRPCRequest, resp *transport.JSONRPCResponse, err error, auto bool) (*transport.JSONRPCResponse, error) {
	if err != nil || resp == nil || resp.Error != nil || req.Method != string(mcpgo.MethodServerDiscover) {
		return resp, err
	}
	var res struct {
		SupportedVersions []string                 `json:"supportedVersions"`
		Capabilities      mcpgo.ServerCapabilities `json:"capabilities"`
	}
	_ = json.Unmarshal(resp.Result, &res)
	switch {
	case !slices.ContainsFunc(res.SupportedVersions, isModern):
		return transport.NewJSONRPCErrorResponse(resp.ID, mcpgo.METHOD_NOT_FOUND, "server/discover answered without a supported version", nil), nil
	case auto && tasksLegacy(res.Capabilities, res.SupportedVersions):
		return transport.NewJSONRPCErrorResponse(resp.ID, mcpgo.METHOD_NOT_FOUND, "a server of tasks spoken to on "+ProtocolLegacy, nil), nil
	}
	return resp, nil
}

// tasksLegacy says whether a server that speaks both eras is better
// spoken to on 2025-11-25: it runs tools as tasks (task-augmented
// tools/call) and does not offer 2026-07-28's tasks extension
// (calltask_ext.go), so its long tools stay tasks, durable across a quit
// or a crash. Pinning "2026-07-28" keeps the new era.
func tasksLegacy(caps mcpgo.ServerCapabilities, versions []string) bool {
	if _, ext := caps.Extensions[tasksExtension]; ext {
		return false
	}
	t := caps.Tasks
	return t != nil && t.Requests != nil && t.Requests.Tools != nil && t.Requests.Tools.Call != nil &&
		slices.Contains(versions, ProtocolLegacy)
}

// listener keeps a stateless-era connection's subscriptions/listen
// stream open: the era's only way to hear list changes and resource
// updates. A new filter (a watch added or dropped) replaces the stream.
type listener struct {
	mu    sync.Mutex
	stop  func()
	acked chan error // the server acknowledged the stream (nil) or refused it
}

// listenWait bounds how long opening the stream waits for the server to
// acknowledge it, so that nothing sent after it is missed.
const listenWait = time.Second

// onListenNote is the connection's notification handler for the stream's
// acknowledgement.
func (c *conn) onListenNote(n mcpgo.JSONRPCNotification) {
	if n.Method == mcpgo.MethodNotificationSubscriptionsAcknowledged {
		c.listener.ack(nil)
	}
}

func (l *listener) ack(err error) {
	select {
	case l.acked <- err:
	default:
	}
}

// listen (re)opens the stream of a stateless-era connection with every
// list change and the resources subscribed so far, and waits until the
// server acknowledges it (at most listenWait, or until ctx is done): what
// the server sends after listen returns reaches latch. On a legacy
// connection it does nothing (notifications arrive without asking).
func (c *conn) listen(ctx context.Context) {
	if !isModern(c.client.ProtocolVersion()) {
		return
	}
	f := c.client.PendingSubscriptionFilter()
	f.ToolsListChanged, f.PromptsListChanged, f.ResourcesListChanged = true, true, true
	c.listener.mu.Lock()
	defer c.listener.mu.Unlock()
	select {
	case err := <-c.listener.acked: // an old stream's: not this one's answer
		_ = err
	default:
	}
	stop, err := c.client.ListenAsync(c.life, f, c.listener.ack)
	if err != nil {
		return
	}
	if old := c.listener.stop; old != nil {
		old() // already superseded by the new stream: only waits for it
	}
	c.listener.stop = stop
	wait := time.NewTimer(listenWait)
	defer wait.Stop()
	select {
	case err := <-c.listener.acked: // refused: notifications arrive only on the next listen
		_ = err
	case <-wait.C:
	case <-ctx.Done():
	}
}

// stopListening closes the stream, if one is open.
func (c *conn) stopListening() {
	c.listener.mu.Lock()
	stop := c.listener.stop
	c.listener.stop = nil
	c.listener.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// capabilities are what the connection declares: in the handshake, or in
// every stateless-era request's _meta.
func (c *conn) capabilities() mcpgo.ClientCapabilities {
	var caps mcpgo.ClientCapabilities
	if c.roots {
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{ListChanged: true}
	}
	if c.elicit {
		caps.Elicitation = elicitCapability()
	}
	if c.sample {
		caps.Sampling = &mcpgo.SamplingCapability{}
	}
	return caps
}

// clientInfo is who latch says it is to a server.
var clientInfo = mcpgo.Implementation{Name: "latch", Version: "0.1"}

// eraRequest is req, one of latch's own requests sent through the
// client's transport (params a map), as the connection's era wants it: on
// the stateless era its params carry in _meta the protocol version,
// latch, its capabilities and the log level /logs set, and over HTTP it
// has the standard headers (Mcp-Method, Mcp-Name). On a legacy one it is
// left as it is, without params when they are empty.
func (c *conn) eraRequest(req transport.JSONRPCRequest) transport.JSONRPCRequest {
	version := c.client.ProtocolVersion()
	params, ok := req.Params.(map[string]any)
	if !ok {
		return req
	}
	if !isModern(version) {
		if len(params) == 0 {
			req.Params = nil // as before: no params at all
		}
		return req
	}
	meta := map[string]any{
		mcpgo.MetaKeyProtocolVersion:    version,
		mcpgo.MetaKeyClientCapabilities: c.capabilities(),
		mcpgo.MetaKeyClientInfo:         clientInfo,
	}
	if level, _ := c.logLevel.Load().(string); level != "" {
		meta[mcpgo.MetaKeyLogLevel] = level
	}
	if own, ok := params["_meta"].(map[string]any); ok {
		for k, v := range own { // the request's own: a progressToken
			if _, set := meta[k]; !set {
				meta[k] = v
			}
		}
	}
	params["_meta"] = meta
	if raw, err := json.Marshal(params); err == nil {
		req.Header = http.Header{}
		for k, v := range mcpgo.StandardHeaders(version, mcpgo.MCPMethod(req.Method), raw) {
			req.Header.Set(k, v)
		}
	}
	return req
}

// autoEra says whether cfg leaves the era to the probe.
func autoEra(cfg ServerConfig) bool {
	return cfg.Protocol == "" || cfg.Protocol == ProtocolAuto
}
