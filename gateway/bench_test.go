package gateway_test

import (
	"context"
	"io"
	"sync"
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

// BenchmarkGatewayStdio is an allowed call of an in-process echo tool
// through the gateway over stdio (pipes), with the session log on disk:
// the gate, the events, the log's syncs, mcp-go's server and client on
// both sides. One op is one call; "callers_1" makes them one after
// another, "callers_32" from 32 goroutines on one client at once (group
// commit shares their syncs), both at the 2026-07-28 protocol (each call
// carries its era in _meta); "callers_32_2025-11-25" as callers_32 at
// the handshake's protocol, as the TypeScript SDK's v1 clients speak it;
// "callers_32_stdio_upstream" as callers_32 with the echo tool's server
// a process of its own on stdio speaking the handshake's protocol
// (testdata/fakemcp -legacy), as latch serve reaches server-memory and
// the other TypeScript SDK v1 servers: the profile of that one is
// latch's and the client's alone.
// calls/s is what to compare, as a ratio,
// against the binary before a change (git stash-free: run it on both
// trees in one go), and cpu-µs/call, the CPU this process (the client
// and latch) spent a call, steadier on a loaded machine. Profile
// latch's part with -cpuprofile.
func BenchmarkGatewayStdio(b *testing.B) {
	for _, run := range []struct {
		callers int
		version string
		stdio   bool
	}{{1, mcp.LATEST_PROTOCOL_VERSION, false}, {32, mcp.LATEST_PROTOCOL_VERSION, false}, {32, "2025-11-25", false},
		{32, mcp.LATEST_PROTOCOL_VERSION, true}} {
		name := "callers_" + itoa(run.callers)
		if run.version != mcp.LATEST_PROTOCOL_VERSION {
			name += "_" + run.version
		}
		if run.stdio {
			name += "_stdio_upstream"
		}
		callers := run.callers
		b.Run(name, func(b *testing.B) {
			c := benchGateway(b, callers, run.version, run.stdio)
			var req mcp.CallToolRequest
			req.Params.Name = "bench__echo"
			req.Params.Arguments = map[string]any{"message": "hello"}
			ctx := context.Background()
			start, cpu := time.Now(), processCPU()
			var next sync.Mutex
			left := b.N
			var wg sync.WaitGroup
			b.ResetTimer()
			for range callers {
				wg.Go(func() {
					for {
						next.Lock()
						if left == 0 {
							next.Unlock()
							return
						}
						left--
						next.Unlock()
						res, err := c.CallTool(ctx, req)
						if err != nil || res.IsError {
							b.Errorf("call: %v %+v", err, res)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/call")
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// BenchmarkGatewayHTTP is BenchmarkGatewayStdio's call over streamable
// HTTP, as latch serve --listen takes it, from 16 clients each calling
// one after another, with a stdio upstream (testdata/fakemcp) as latch
// reaches a real server: "stateless" with the clients on the 2026-07-28
// form (each request on its own, as mcp-go's clients speak to latch),
// "session" with them held to the 2025 handshake (a session each, as they
// speak to TBXark/mcp-proxy). Profile latch's part with -cpuprofile.
func BenchmarkGatewayHTTP(b *testing.B) {
	b.Run("stateless", func(b *testing.B) { benchGatewayHTTP(b, false) })
	b.Run("session", func(b *testing.B) { benchGatewayHTTP(b, true) })
}

func benchGatewayHTTP(b *testing.B, legacy bool) {
	const clients = 16
	sess := benchSession(b, session.ServerConfig{Name: "bench", Transport: "stdio", Command: mcptestutil.BuildFakeMCP(b)})
	g := gateway.New(gateway.Options{Session: sess, Limits: gateway.Limits{Concurrent: clients, Rate: 1e9, Burst: 1e9}})
	ctx, stop := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- g.ServeHTTP(ctx, gateway.HTTPOptions{Addr: "127.0.0.1:0", Token: "bench-token", Ready: func(a string) { ready <- a }})
	}()
	b.Cleanup(func() { stop(); <-done })
	var url string
	select {
	case a := <-ready:
		url = "http://" + a + gateway.Path
	case err := <-done:
		b.Fatal(err)
	}
	cs := make([]*client.Client, clients)
	for i := range cs {
		tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer bench-token"}))
		if err != nil {
			b.Fatal(err)
		}
		var opts []client.ClientOption
		if legacy {
			opts = append(opts, client.WithLegacyProtocolOnly()) //nolint:staticcheck // the 2025 handshake on purpose
		}
		c := client.NewClient(tr, opts...)
		b.Cleanup(func() { _ = c.Close() })
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		var init mcp.InitializeRequest
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			b.Fatal(err)
		}
		cs[i] = c
	}
	var req mcp.CallToolRequest
	req.Params.Name = "bench__echo"
	req.Params.Arguments = map[string]any{"message": "hello"}
	var next sync.Mutex
	left := b.N
	var wg sync.WaitGroup
	start := time.Now()
	b.ResetTimer()
	for _, c := range cs {
		wg.Go(func() {
			for {
				next.Lock()
				if left == 0 {
					next.Unlock()
					return
				}
				left--
				next.Unlock()
				if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
					b.Errorf("call: %v %+v", err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// benchSession is a session over server, logging to a temporary folder,
// echo allowed, its server connected.
func benchSession(b *testing.B, server session.ServerConfig) *session.Session {
	b.Helper()
	ol := ollamatest.New()
	b.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: ol.Host(), NonInteractive: true, LogDir: b.TempDir(),
		Servers: []session.ServerConfig{server},
		Policy:  permissions.Policy{Mode: permissions.Auto, ServerAllow: map[string][]string{"bench": {"echo"}}}})
	b.Cleanup(sess.Close)
	sess.StartServers()
	wctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	sess.WaitServers(wctx)
	cancel()
	return sess
}

// benchGateway is a gateway over a session logging to a temporary
// folder, echo allowed, served over pipes to a client initialized at
// version. The echo tool's server is in the process, or with stdio a
// process of its own (testdata/fakemcp, of the handshake's protocol).
func benchGateway(b *testing.B, callers int, version string, stdio bool) *client.Client {
	b.Helper()
	var upstream session.ServerConfig
	if stdio {
		upstream = session.ServerConfig{Name: "bench", Transport: "stdio", Command: mcptestutil.BuildFakeMCP(b), Args: []string{"-legacy", "answer"}}
	} else {
		echo := server.NewMCPServer("bench", "1.0")
		echo.AddTool(mcp.NewTool("echo", mcp.WithString("message", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(req.GetString("message", "")), nil
			})
		upstream = session.ServerConfig{Name: "bench", Transport: "inprocess", InProcess: echo}
	}
	sess := benchSession(b, upstream)
	g := gateway.New(gateway.Options{Session: sess,
		Limits: gateway.Limits{Concurrent: callers, Rate: 1e9, Burst: 1e9}})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- g.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	b.Cleanup(func() { _ = c.Close(); _ = inW.Close(); _ = outR.Close(); stop(); <-done })
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	return c
}
