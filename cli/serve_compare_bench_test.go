package cli

// The gateway against the binary before a change and against another
// proxy, on the same upstream (server-memory's read_graph), in one run:
//
//	LATCH_SERVE_BENCH=1 LATCH_BENCH_MCP_PROXY=/path/to/mcp-proxy go test -count=1 \
//	  -run 'TestServeOverhead|TestServeConcurrentStdio|TestServeFiftyClients' -v ./cli/
//
// The binary before the change is built from git (benchbase_test.go:
// BENCH_BASE, LATCH_BENCH_BASE_BIN). Without mcp-proxy, that comparison
// is skipped and said so in the output.
// Measurements, not pass/fail thresholds.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
)

// benchBase is the binary before the change (baseBinary), or "" (said in
// the test's output).
func benchBase(t *testing.T) string {
	t.Helper()
	bin, _ := baseBinary(t)
	return bin
}

// TestServeConcurrentStdio: 32 callers at once on one stdio connection
// to latch serve --stdio, each making calls of read_graph one after
// another: calls/s, through this binary and (in alternating rounds, so a
// drifting machine slows both alike) through the one before the change.
// A round is under a second, so one stall of the machine's other work
// moves the sum a lot: the median of the rounds' ratios is given too.
func TestServeConcurrentStdio(t *testing.T) {
	if os.Getenv("LATCH_SERVE_BENCH") != "1" {
		t.Skip("a measurement; set LATCH_SERVE_BENCH=1 to run it")
	}
	const callers, each, rounds = 32, 25, 7
	mem := mcptestutil.NPMBin(t, "mcp-server-memory")
	r := newPromptRig(t, map[string]any{
		"serve": map[string]any{"max_concurrent_per_client": callers},
		"mcpServers": map[string]any{"mem": map[string]any{"command": mem, "allow": []string{"read_graph"},
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}}}}, false)
	bins := map[string]string{"this": r.bin}
	if base := benchBase(t); base != "" {
		bins["before"] = base
	}
	serve := func(bin string) stdioCmd {
		return stdioCmd{bin: bin, env: r.env, args: []string{"--config", r.cfg, "serve", "--stdio", "--quiet"}, tool: "mem__read_graph"}
	}
	cmds := map[string]stdioCmd{"this": serve(r.bin), "before": serve(bins["before"]),
		// The upstream alone, the same callers calling it directly: what
		// no gateway can beat.
		"direct": {bin: mem, env: append(slices.Clone(r.env), "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl")), tool: "read_graph"}}
	// This build with its session log on tmpfs, where fsync costs nothing:
	// how far the decision's fsync holds the calls back.
	order := []string{"this", "before", "direct"}
	if dir := tmpfsDir(t); dir != "" {
		tc := serve(r.bin)
		tc.env = append(slices.Clone(r.env), "XDG_STATE_HOME="+dir)
		cmds["tmpfs"] = tc
		order = append(order, "tmpfs")
		t.Cleanup(func() { logOnTmpfs(t, dir) })
	}
	took, cpu := map[string]time.Duration{}, map[string]time.Duration{}
	var ratios []float64 // a round's calls/s through this one over the one before
	for range rounds {
		round := map[string]time.Duration{}
		for _, name := range order {
			if cmds[name].bin == "" {
				continue
			}
			d, c := concurrentStdio(t, cmds[name], callers, each)
			round[name] = d
			took[name] += d
			cpu[name] += c
		}
		if round["this"] > 0 && round["before"] > 0 {
			ratios = append(ratios, round["before"].Seconds()/round["this"].Seconds())
		}
	}
	calls := float64(callers * each * rounds)
	rate := func(name string) float64 { return calls / took[name].Seconds() }
	perCall := func(name string) float64 { return float64(cpu[name].Microseconds()) / 1000 / calls }
	t.Logf("%d callers at once over one stdio connection, %d calls of read_graph each, %d rounds: %.0f calls/s through latch serve "+
		"(its CPU %.3f ms a call), %.0f calling server-memory directly (%.2f× latch's; server-memory's CPU %.3f ms a call)",
		callers, each, rounds, rate("this"), perCall("this"), rate("direct"), rate("direct")/rate("this"), perCall("direct"))
	if took["tmpfs"] > 0 {
		t.Logf("this one with its log on tmpfs (fsync free): %.0f calls/s (%.2f× on disk), its CPU %.3f ms a call",
			rate("tmpfs"), rate("tmpfs")/rate("this"), perCall("tmpfs"))
		if took["before"] > 0 {
			t.Logf("on tmpfs over the one before on disk: %.2f×", rate("tmpfs")/rate("before"))
		}
	}
	if took["before"] > 0 {
		t.Logf("before the change: %.0f calls/s, its CPU %.3f ms a call; this one does %.2f× as many (target ≥ 3×), with %.2f× the CPU a call",
			rate("before"), perCall("before"), rate("this")/rate("before"), perCall("this")/perCall("before"))
		slices.Sort(ratios)
		t.Logf("the rounds' ratios of calls/s, this one's over the one before's: median %.2f× (%.2f× to %.2f×)",
			ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
	}
}

// stdioCmd is a stdio MCP server to call: its command, environment,
// arguments, and the tool called.
type stdioCmd struct {
	bin       string
	env, args []string
	tool      string
}

// concurrentStdio starts sc's server, makes callers × each calls of its
// tool at once after the handshake, and returns how long the calls took
// and the CPU time the server's process used for them.
func concurrentStdio(t *testing.T, sc stdioCmd, callers, each int) (time.Duration, time.Duration) {
	t.Helper()
	bin := sc.bin
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(5*time.Minute))
	defer cancel()
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(bin, sc.env, sc.args, transport.WithCommandFunc(
		func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = env
			return cmd, nil
		}))
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer func() { _ = c.Close() }()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("%s: initialize: %v", bin, err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = sc.tool
	if _, err := c.CallTool(ctx, req); err != nil { // warm
		t.Fatalf("%s: %v", bin, err)
	}
	start, cpu0 := time.Now(), cpuTime(cmd.Process.Pid)
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for range each {
				if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
					t.Errorf("%s: call: %v %+v", bin, err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), cpuTime(cmd.Process.Pid) - cpu0
}

// mcpProxy is TBXark/mcp-proxy's binary ($LATCH_BENCH_MCP_PROXY), or ""
// (said in the test's output).
func mcpProxy(t *testing.T) string {
	t.Helper()
	b := os.Getenv("LATCH_BENCH_MCP_PROXY")
	if b == "" {
		t.Log("NOT COMPARED with TBXark/mcp-proxy: set LATCH_BENCH_MCP_PROXY to its binary (go build in a checkout of github.com/TBXark/mcp-proxy)")
	}
	return b
}

// startMCPProxy runs mcp-proxy serving server-memory over streamable HTTP
// with token, and returns its URL once it answers, and its process id.
func startMCPProxy(t *testing.T, bin, mem, memFile, token string) (string, int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	cfg := map[string]any{
		"mcpProxy": map[string]any{"baseURL": "http://" + addr, "addr": addr, "name": "bench", "version": "1",
			"type": "streamable-http", "options": map[string]any{"logEnabled": false, "authTokens": []string{token}}},
		"mcpServers": map[string]any{"mem": map[string]any{"command": mem, "env": map[string]string{"MEMORY_FILE_PATH": memFile}}},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "mcp-proxy.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "http://" + addr + "/mem/mcp"
	// It listens before its upstream is connected, and routes /mem/ only
	// after: ready is an initialize answered.
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`
	mcptestutil.WaitFor(t, mcptestutil.HangBound(time.Minute), "mcp-proxy serving server-memory at "+url, func() bool {
		req, err := http.NewRequest("POST", url, strings.NewReader(initBody))
		if err != nil {
			return false
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	return url, cmd.Process.Pid
}

// fiftyClients runs clients × calls calls of tool at url and returns
// every call's time in ms, and the failures. legacy keeps the clients on
// the initialize handshake (the 2025 protocol: sessions) rather than the
// 2026-07-28 stateless form they speak to a server that offers it. The
// clients share hc.
func fiftyClients(url, token, tool string, clients, calls int, legacy bool, hc *http.Client) (ms []float64, failures []string, wall time.Duration) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for i := range clients {
		wg.Go(func() {
			took, err := benchClient(url, token, fmt.Sprintf("bench-%02d", i), tool, calls, legacy, hc)
			mu.Lock()
			defer mu.Unlock()
			ms = append(ms, took...)
			if err != nil {
				failures = append(failures, err.Error())
			}
		})
	}
	wg.Wait()
	return ms, failures, time.Since(start)
}
