package mcp

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"

	"latch/mcp/mcptestutil"
)

// BenchmarkConnect8Slow is the time from Start until every server is
// connected, for one server that takes 300 ms to start and for eight such
// servers: servers connect in parallel, so eight should cost about as
// much as one (target: ≤ 1.5×).
func BenchmarkConnect8Slow(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			var cfgs []ServerConfig
			for i := range n {
				cfgs = append(cfgs, fakeServer(b, fmt.Sprintf("slow%d", i), "-start-delay", "300ms"))
			}
			b.ResetTimer()
			for range b.N {
				connectAll(b, cfgs)
			}
		})
	}
}

// connectAll starts a manager for cfgs and waits until every server is
// connected (the timed part), then closes it untimed.
func connectAll(b *testing.B, cfgs []ServerConfig) {
	var mu sync.Mutex
	connected, failed := 0, ""
	all := make(chan struct{})
	m := New(cfgs, Options{OnEvent: func(e Event) {
		sc, ok := e.(StatusChanged)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch sc.Status.State {
		case StateConnected:
			if connected++; connected == len(cfgs) {
				close(all)
			}
		case StateFailed, StateDisconnected:
			if failed == "" {
				failed = sc.Status.Name + ": " + sc.Status.Summary()
				close(all)
			}
		}
	}})
	m.Start()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		b.Fatal("servers not connected within 30s")
	}
	b.StopTimer()
	mu.Lock()
	f := failed
	mu.Unlock()
	m.CloseAll()
	if f != "" {
		b.Fatal(f)
	}
	b.StartTimer()
}

// BenchmarkConnectEra is the time from Start until one stdio server is
// connected, by the era it speaks: only the handshake era, answering the
// server/discover probe "method not found" (legacy) or not at all
// (ignores), or both eras (stateless). protocol=2025-11-25 is latch
// before eras were chosen (no probe); auto is the default now. Targets:
// auto costs a legacy server ≤ 20 ms more, one that ignores the probe ≤
// 300 ms more.
func BenchmarkConnectEra(b *testing.B) {
	for _, server := range []struct{ name, legacy string }{{"legacy", "answer"}, {"ignores", "ignore"}, {"stateless", ""}} {
		for _, protocol := range []string{ProtocolLegacy, ProtocolAuto} {
			b.Run("server="+server.name+"/protocol="+protocol, func(b *testing.B) {
				cfg := fakeServer(b, "era")
				if server.legacy != "" {
					cfg.Args = []string{"-legacy", server.legacy}
				}
				cfg.Protocol = protocol
				b.ResetTimer()
				for range b.N {
					connectAll(b, []ServerConfig{cfg})
				}
			})
		}
	}
}

// BenchmarkConnectHTTP is the time from Start until an in-process server
// is connected over streamable HTTP (protocol auto: the server/discover
// probe, answered) and over legacy SSE (no probe). It was a test's "≤ 2 s"
// once: a stall there is a probe waited out (5 s), which a benchmark
// shows on any machine and a deadline only on a quiet one.
func BenchmarkConnectHTTP(b *testing.B) {
	for _, transport := range []string{TransportHTTP, TransportSSE} {
		b.Run(transport, func(b *testing.B) {
			var cfg ServerConfig
			if transport == TransportHTTP {
				h := servertest.NewTestStreamableHTTPServer(benchEchoServer())
				b.Cleanup(h.Close)
				cfg = ServerConfig{Name: "web", Transport: transport, URL: h.URL + "/mcp"}
			} else {
				h := servertest.NewTestServer(benchEchoServer())
				b.Cleanup(h.Close)
				cfg = ServerConfig{Name: "web", Transport: transport, URL: h.URL + "/sse"}
			}
			b.ResetTimer()
			for range b.N {
				connectAll(b, []ServerConfig{cfg})
			}
		})
	}
}

// BenchmarkConnectEverything is the time from Start until the pinned
// server-everything (npm) is connected, over each transport; on stdio it
// includes Node's start-up. A server/discover probe waited out instead of
// answered would add 5 s to stdio and streamable HTTP: TestPeerEverything
// asserted "< 3 s" once, which a busy machine broke.
func BenchmarkConnectEverything(b *testing.B) {
	bin := mcptestutil.NPMBin(b, "mcp-server-everything")
	for _, transport := range peerTransports {
		b.Run(transport, func(b *testing.B) {
			cfg := peerEverything(b, bin, transport, 10*time.Second)
			b.ResetTimer()
			for range b.N {
				connectAll(b, []ServerConfig{cfg})
			}
		})
	}
}

// benchEchoServer is an in-process mcp-go server with one echo tool.
func benchEchoServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("bench", "1.0", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("message", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(req.GetString("message", "")), nil
		})
	return s
}

// BenchmarkCallOverhead compares a tool call through the manager with the
// same call made with a bare mcp-go client, both on one in-process server:
// what the manager adds (lookup, timeout, result conversion) should be
// small (target: manager ≤ 1.10 × bare).
func BenchmarkCallOverhead(b *testing.B) {
	srv := benchEchoServer()
	args := map[string]any{"message": "hello, benchmark"}
	ctx := context.Background()

	b.Run("manager", func(b *testing.B) {
		m := New([]ServerConfig{{Name: "bench", Transport: TransportInProcess, InProcess: srv}}, Options{})
		defer m.CloseAll()
		if err := m.Connect("bench"); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			res, err := m.Call(ctx, "bench__echo", args, "")
			if err != nil || res.Text != "hello, benchmark" {
				b.Fatalf("call: %v %+v", err, res)
			}
		}
	})

	b.Run("bare", func(b *testing.B) {
		c, err := client.NewInProcessClient(srv)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		var ir mcpgo.InitializeRequest
		// The manager pins the same protocol.
		ir.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
		ir.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "0.1"}
		if _, err := c.Initialize(ctx, ir); err != nil {
			b.Fatal(err)
		}
		var req mcpgo.CallToolRequest
		req.Params.Name = "echo"
		req.Params.Arguments = args
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			res, err := c.CallTool(ctx, req)
			if err != nil || len(res.Content) != 1 {
				b.Fatalf("call: %v %+v", err, res)
			}
		}
	})
}

// BenchmarkStdioHugeResult is one call over stdio whose result is 64 KiB
// and one whose result is 12 MiB (truncated for the model): the second's
// cost is mostly mcp-go decoding the JSON. Compare the two in one run: it
// should grow no faster than the size (192×).
// TestStdioHugeResultIsTruncated checks what comes back, not how fast.
func BenchmarkStdioHugeResult(b *testing.B) {
	ready := make(chan struct{})
	var once sync.Once
	m := New([]ServerConfig{fakeServer(b, "big")}, Options{OnEvent: func(e Event) {
		if sc, ok := e.(StatusChanged); ok && sc.Status.State == StateConnected {
			once.Do(func() { close(ready) })
		}
	}})
	m.Start()
	defer m.CloseAll()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		b.Fatal("the fake server did not connect within 30s")
	}
	for _, size := range []int{64 << 10, 12 << 20} {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			for range b.N {
				res, err := m.Call(context.Background(), "big__huge", map[string]any{"bytes": size}, "")
				if err != nil || res.IsError {
					b.Fatalf("call: %v %v", err, res)
				}
			}
		})
	}
}
