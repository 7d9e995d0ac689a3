package gateway_test

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// token is the rigs' bearer token.
const token = "rig-token"

// rig is a session holding in-process upstream servers, every call
// allowed, served by a gateway over streamable HTTP on a loopback port.
type rig struct {
	sess *session.Session
	g    *gateway.Gateway
	url  string
}

// newRig serves servers' tools through a gateway made with o (its Session
// set here), which follows the servers' tools as they change.
func newRig(t *testing.T, o gateway.Options, servers ...session.ServerConfig) *rig {
	t.Helper()
	return startRig(t, o, true, session.Options{}, servers...)
}

// startRig is newRig with the session's options so (auto mode for the
// zero mode, read_only); without follow, the gateway keeps serving the
// tools as they were when it started.
func startRig(t *testing.T, o gateway.Options, follow bool, so session.Options, servers ...session.ServerConfig) *rig {
	t.Helper()
	return startRigHTTP(t, o, follow, so, gateway.HTTPOptions{Token: token}, servers...)
}

// startRigHTTP is startRig serving with ho's tokens.
func startRigHTTP(t *testing.T, o gateway.Options, follow bool, so session.Options, ho gateway.HTTPOptions, servers ...session.ServerConfig) *rig {
	t.Helper()
	r := newGateway(t, o, follow, so, servers...)
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	ho.Addr, ho.Ready = "127.0.0.1:0", func(addr string) { ready <- addr }
	go func() {
		done <- r.g.ServeHTTP(ctx, ho)
	}()
	t.Cleanup(func() { stop(); <-done })
	select {
	case addr := <-ready:
		r.url = "http://" + addr + gateway.Path
		return r
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatal("the gateway did not listen")
	}
	return nil
}

// newGateway is a rig not serving yet: the session, its servers'
// first connect over, and the gateway.
func newGateway(t *testing.T, o gateway.Options, follow bool, so session.Options, servers ...session.ServerConfig) *rig {
	t.Helper()
	if so.Policy.Mode == permissions.ReadOnly {
		so.Policy.Mode = permissions.Auto
	}
	return newGatewayIn(t, o, follow, so, servers...)
}

// newGatewayIn is newGateway in so's mode as it is, read_only for the
// zero mode.
func newGatewayIn(t *testing.T, o gateway.Options, follow bool, so session.Options, servers ...session.ServerConfig) *rig {
	t.Helper()
	ol := ollamatest.New()
	t.Cleanup(ol.Close)
	so.Client, so.Host, so.NonInteractive, so.Servers = ol.Client(), ol.Host(), true, servers
	sess := session.New(so)
	t.Cleanup(sess.Close)
	sub := sess.Subscribe()
	sess.StartServers()
	wctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(20*time.Second))
	sess.WaitServers(wctx)
	cancel()
	o.Session = sess
	g := gateway.New(o)
	if follow {
		ctx, stop := context.WithCancel(context.Background())
		t.Cleanup(stop)
		go g.Follow(ctx, sub)
	}
	return &rig{sess: sess, g: g}
}

// stdioClient serves the rig's gateway on pipes (ServeStdio) to an
// mcp-go client, initialized as name.
func (r *rig) stdioClient(t *testing.T, name string) *client.Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.g.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	t.Cleanup(func() { _ = c.Close(); _ = inW.Close(); _ = outR.Close(); stop(); <-done })
	r.initialize(t, c, mcp.LATEST_PROTOCOL_VERSION, name)
	return c
}

// connect is an mcp-go client of the rig's gateway that calls itself
// name, initialized at mcp-go's newest protocol version (the stateless
// 2026-07-28 form); onNote, when set, hears its notifications.
func (r *rig) connect(t *testing.T, name string, onNote func(mcp.JSONRPCNotification)) *client.Client {
	t.Helper()
	return r.connectAt(t, mcp.LATEST_PROTOCOL_VERSION, name, onNote)
}

// connectAt is connect at the given protocol version: before 2026-07-28,
// the initialize handshake and an Mcp-Session-Id session.
func (r *rig) connectAt(t *testing.T, version, name string, onNote func(mcp.JSONRPCNotification)) *client.Client {
	t.Helper()
	return r.connectWith(t, token, version, name, onNote)
}

// connectWith is connectAt with the bearer token tok.
func (r *rig) connectWith(t *testing.T, tok, version, name string, onNote func(mcp.JSONRPCNotification)) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(r.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if onNote != nil {
		c.OnNotification(onNote)
	}
	r.initialize(t, c, version, name)
	return c
}

// initialize starts c and makes the handshake at version as name.
func (r *rig) initialize(t *testing.T, c *client.Client, version, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(20*time.Second))
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize %s: %v", name, err)
	}
}

// call calls tool with args, within a bound.
func call(t *testing.T, c *client.Client, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	t.Helper()
	// A hang's bound: a call of 4 MiB under -race beside other work took
	// more than 20 s (TestParkQuotaBoundsTheLogOfOneClient).
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(20*time.Second))
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = tool, args
	return c.CallTool(ctx, req)
}

// text is a result's text content, joined.
func text(r *mcp.CallToolResult) string {
	var s string
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

// holdServer is an upstream server whose "hold" calls run until release
// is called, and whose "echo" answers at once.
type holdServer struct {
	srv     *server.MCPServer
	running atomic.Int32
	once    sync.Once
	gate    chan struct{}
}

func newHoldServer() *holdServer {
	h := &holdServer{srv: server.NewMCPServer("hold", "1"), gate: make(chan struct{})}
	h.srv.AddTool(mcp.NewTool("hold"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		h.running.Add(1)
		defer h.running.Add(-1)
		select {
		case <-h.gate:
		case <-ctx.Done():
		}
		return mcp.NewToolResultText("held"), nil
	})
	h.srv.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo " + req.GetString("text", "")), nil
	})
	return h
}

// release ends every hold call, and those to come.
func (h *holdServer) release() { h.once.Do(func() { close(h.gate) }) }
