package session

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/permissions"
)

// benchEchoServer is an in-process MCP server with one tool, echo, that
// returns its message: the cheapest real call, so that what latch adds on
// top of it shows.
func benchEchoServer() *mcpserver.MCPServer {
	srv := mcpserver.NewMCPServer("bench", "1.0")
	srv.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("message", mcpgo.Required()), mcpgo.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(req.GetString("message", "")), nil
		})
	return srv
}

func benchServers() []ServerConfig {
	return []ServerConfig{{Name: "bench", Transport: mcp.TransportInProcess, InProcess: benchEchoServer()}}
}

// benchSession is a session with the echo server connected, echo
// allow-listed, and a reader taking its events at the UI's pace (a batch
// per 50 ms frame, as ui.Model does). drained waits until the reader has
// taken every event published before it was called.
func benchSession(b *testing.B, servers []ServerConfig, logDir string) (s *Session, drained func()) {
	s = New(Options{Model: "qwen3:8b", Servers: servers, LogDir: logDir,
		Policy: permissions.Policy{ServerAllow: map[string][]string{"bench": {"echo"}}}})
	b.Cleanup(s.Close)
	s.StartServers()
	waitToolNamed(b, s, "bench__echo")
	sub := s.Subscribe()
	var marker atomic.Pointer[Error] // the event drained waits for
	seen := make(chan struct{}, 1)
	go func() {
		last := time.Now()
		for {
			evs, ok := sub.NextPaced(context.Background(), last, 50*time.Millisecond)
			if !ok {
				return
			}
			last = time.Now()
			for _, e := range evs {
				if e == Event(marker.Load()) {
					seen <- struct{}{}
				}
			}
		}
	}()
	drained = func() {
		m := &Error{Header: s.header(TypeError), Message: "bench: end of block"}
		marker.Store(m)
		s.publish(m)
		<-seen
	}
	return s, drained
}

// liveHeap allocates small objects with pointers, for the garbage
// collector to mark on every cycle: the heap of a running latch (10 MB live
// after its first reply, per GODEBUG=gctrace=1, held by the screen, glamour
// and the chat). Without it the benchmark's heap is 1 MB, the collector
// runs every 3 MB allocated, and the events a frame holds for the screen
// weigh as they never do in latch. LATCH_BENCH_HEAP_MB sets its size in
// MB (0: none), to see that too.
func liveHeap(b *testing.B) []*[16]string {
	mb := 10
	if v := os.Getenv("LATCH_BENCH_HEAP_MB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.Fatalf("LATCH_BENCH_HEAP_MB=%q: want a number of MB", v)
		}
		mb = n
	}
	objs := make([]*[16]string, mb<<20/256)
	for i := range objs {
		objs[i] = &[16]string{"latch"}
	}
	return objs
}

// benchCall is the model's call of echo.
func benchCall() api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	args.Set("message", "hello")
	return api.ToolCall{ID: "call_bench001", Function: api.ToolCallFunction{Name: "bench__echo", Arguments: args}}
}

// BenchmarkToolCallOverhead compares one call of an in-process echo tool
// made directly through the MCP manager with the same call taken by the
// session's path: the gate's decision, the tool_call, permission and
// tool_result events (taken by a reader at the UI's pace), the call itself
// and the tool message for the model. The target is at most 5% over the
// direct call.
//
// The session sends its call id as the progress token (MCP servers report
// progress only for requests that carry one; the tool card's progress bar
// needs it), which costs mcp-go several microseconds on an in-process call.
// "manager" and "manager_progress" are the direct call without and with
// it, "session" the session's path; "paired" takes the three in turn on one
// session and reports the ratios of their times from the one run, which is
// what the target is read from ("session/manager_progress": the same
// request with and without the gate and the events). "session_logged" adds
// the session log's fsyncs, for scale.
func BenchmarkToolCallOverhead(b *testing.B) {
	heap := liveHeap(b)
	defer runtime.KeepAlive(heap)
	args := map[string]any{"message": "hello"}
	direct := func(callID string) func(b *testing.B) {
		return func(b *testing.B) {
			m := mcp.New(benchServers(), mcp.Options{})
			b.Cleanup(m.CloseAll)
			m.Start()
			mcptestutil.WaitFor(b, 15*time.Second, "bench__echo", func() bool { _, ok := m.Lookup("bench__echo"); return ok })
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := m.Call(ctx, "bench__echo", args, callID)
				if err != nil || res.Text != "hello" {
					b.Fatalf("Call = %+v, %v", res, err)
				}
			}
		}
	}
	b.Run("manager", direct(""))
	b.Run("manager_progress", direct("call_bench001"))
	session := func(logged bool) func(b *testing.B) {
		return func(b *testing.B) {
			dir := ""
			if logged {
				dir = b.TempDir()
			}
			s, _ := benchSession(b, benchServers(), dir)
			call := benchCall()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if msg, answered := s.runToolCall(ctx, 1, call); !answered || msg.Content != "hello" {
					b.Fatalf("tool message %+v (answered %v)", msg, answered)
				}
			}
		}
	}
	b.Run("session", session(false))
	// With the session log, as latch runs: the permission and the
	// tool_result are synced to disk before the session goes on
	// (docs/ARCHITECTURE.md, "The session log"), which costs what this disk's fsync costs.
	b.Run("session_logged", session(true))
	b.Run("paired", func(b *testing.B) { pairedCalls(b, benchServers()) })
}

// BenchmarkToolCallOverheadStdio is the "paired" comparison over stdio,
// with testdata/fakemcp as the server: how a real server is reached, where
// the server's half of each request (decoding the progress token among it)
// is another process's work.
func BenchmarkToolCallOverheadStdio(b *testing.B) {
	heap := liveHeap(b)
	defer runtime.KeepAlive(heap)
	servers := []ServerConfig{{Name: "bench", Transport: mcp.TransportStdio, Command: mcptestutil.BuildFakeMCP(b)}}
	b.Run("paired", func(b *testing.B) { pairedCalls(b, servers) })
}

// pairedCalls times calls of echo made three ways on one session's
// manager: directly without and with a progress token, and through the
// session's path. It reports each one's time per call and the ratios.
func pairedCalls(b *testing.B, servers []ServerConfig) {
	args := map[string]any{"message": "hello"}
	s, drained := benchSession(b, servers, "")
	call := benchCall()
	ctx := context.Background()
	paths := []func(){
		func() { // the manager, as a caller without progress would use it
			if res, err := s.servers.Call(ctx, "bench__echo", args, ""); err != nil || res.Text != "hello" {
				b.Fatalf("Call = %+v, %v", res, err)
			}
		},
		func() { // the manager, with the session's request
			if res, err := s.servers.Call(ctx, "bench__echo", args, "call_bench001"); err != nil || res.Text != "hello" {
				b.Fatalf("Call = %+v, %v", res, err)
			}
		},
		func() { // the session
			if msg, answered := s.runToolCall(ctx, 1, call); !answered || msg.Content != "hello" {
				b.Fatalf("tool message %+v (answered %v)", msg, answered)
			}
		},
	}
	// One op is one call. Calls go in blocks, the paths in turn and
	// in rotating order, so that a drifting machine slows all three
	// alike. After each block the reader takes what is left, off the
	// clock: the garbage collector's work for the session's events
	// falls in the session's blocks.
	const block = 2000
	var total [3]time.Duration
	var count [3]int
	for i := 0; i < b.N; {
		k := i / block
		p := (k%3 + k/3) % 3
		n := min(block, b.N-i)
		start := time.Now()
		for range n {
			paths[p]()
		}
		total[p] += time.Since(start)
		count[p] += n
		i += n
		b.StopTimer()
		drained()
		b.StartTimer()
	}
	if count[0] == 0 || count[1] == 0 || count[2] == 0 {
		return // too few calls for a block of each
	}
	per := func(p int) float64 { return float64(total[p]) / float64(count[p]) }
	b.ReportMetric(per(0), "manager-ns/call")
	b.ReportMetric(per(1), "manager_progress-ns/call")
	b.ReportMetric(per(2), "session-ns/call")
	b.ReportMetric(per(2)/per(1), "session/manager_progress")
	b.ReportMetric(per(2)/per(0), "session/manager")
}
