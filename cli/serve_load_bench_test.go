package cli

// 50 clients at once, each making 200 allowed calls one after another
// through latch serve --listen with its default limits: the calls that
// failed (there must be none), the latency of a call (p50, p99), the CPU
// a call of the gateway, its upstream and the clients, the bytes of a
// call on the wire, and the gateway's peak RSS; with the clients on the
// 2026-07-28 form and on the 2025 handshake, against TBXark/mcp-proxy
// (LATCH_BENCH_MCP_PROXY), the same build with its session log on tmpfs
// (where the decision's fsync costs nothing: what of the gap is the
// durability promise) and the build before the change, in rounds taken
// in turn. A measurement; run it with:
//
//	LATCH_SERVE_BENCH=1 go test -count=1 -run TestServeFiftyClients -v .

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
)

func TestServeFiftyClients(t *testing.T) {
	if os.Getenv("LATCH_SERVE_BENCH") != "1" {
		t.Skip("a measurement; set LATCH_SERVE_BENCH=1 to run it")
	}
	const clients, calls, rounds, token = 50, 200, 3, "bench-token"
	mem := mcptestutil.NPMBin(t, "mcp-server-memory")
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"mem": map[string]any{"command": mem, "allow": []string{"read_graph"},
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}}}}, false)
	srv := startServeHTTP(t, r, token, "--quiet")
	// The same load on the same upstream, in rounds taken in turn so that
	// a drifting machine slows each alike: latch serve with the clients
	// on the 2026-07-28 form (the headline), the same clients held to the
	// 2025 handshake, and TBXark/mcp-proxy (no gate, no log, no limits:
	// what a bare proxy costs), whose mcp-go offers no 2026-07-28
	// stateless form, so the clients speak the 2025 protocol to it.
	type target struct {
		name, url, tool string
		legacy          bool
		pid             int
	}
	targets := []target{
		{"latch serve, clients on 2026-07-28", srv.url, "mem__read_graph", false, srv.cmd.Process.Pid},
		{"latch serve, clients on the 2025 handshake", srv.url, "mem__read_graph", true, srv.cmd.Process.Pid},
	}
	if proxy := mcpProxy(t); proxy != "" {
		url, pid := startMCPProxy(t, proxy, mem, filepath.Join(t.TempDir(), "memory.jsonl"), token)
		targets = append(targets, target{"TBXark/mcp-proxy, clients on the 2025 handshake", url, "read_graph", true, pid})
	}
	proxied := len(targets) == 3
	// The same build with its session log on tmpfs, where fsync costs
	// nothing: how much of the gap to mcp-proxy is the decision's fsync
	// (the durability promise) rather than latch's CPU.
	tmpfs := -1
	if dir := tmpfsDir(t); dir != "" {
		fsrv := startServeHTTPEnv(t, r, []string{"XDG_STATE_HOME=" + dir}, token, "--quiet")
		tmpfs = len(targets)
		targets = append(targets, target{"latch serve, its log on tmpfs (fsync free), clients on 2026-07-28", fsrv.url, "mem__read_graph", false, fsrv.cmd.Process.Pid})
		t.Cleanup(func() { logOnTmpfs(t, dir) })
	}
	// The binary before the change, with the clients on 2026-07-28.
	base := -1
	if bin := benchBase(t); bin != "" {
		rb := *r
		rb.bin = bin
		bsrv := startServeHTTP(t, &rb, token, "--quiet")
		base = len(targets)
		targets = append(targets, target{"latch serve before the change, clients on 2026-07-28", bsrv.url, "mem__read_graph", false, bsrv.cmd.Process.Pid})
	}
	runs := make([]loadRun, len(targets))
	var ratios [2][]float64 // a round's p50 of latch serve over mcp-proxy's, 2026 and 2025 clients
	for range rounds {
		var p50 []float64
		for i, tg := range targets {
			run := measureLoad(tg.url, token, tg.tool, clients, calls, tg.legacy, tg.pid)
			runs[i].add(run)
			p50 = append(p50, percentile(run.ms, 50))
		}
		if proxied {
			ratios[0] = append(ratios[0], p50[0]/p50[2])
			ratios[1] = append(ratios[1], p50[1]/p50[2])
		}
	}
	hwm := vmHWM(srv.cmd.Process.Pid)
	t.Logf("%d clients × %d calls of read_graph, %d rounds; latch serve's peak RSS (VmHWM) %s", clients, calls, rounds, hwm)
	for i, tg := range targets {
		t.Logf("%s: %s", tg.name, runs[i].summary())
		if len(runs[i].failures) > 0 || runs[i].calls != rounds*clients*calls {
			t.Errorf("%s: %d calls of %d done; failures: %s", tg.name, runs[i].calls, rounds*clients*calls, strings.Join(runs[i].failures, "\n"))
		}
	}
	for i, tg := range targets {
		t.Logf("%s: one tools/call on the wire:\n%s\n---\n%s", tg.name, runs[i].sampleReq, runs[i].sampleRe)
	}
	if proxied {
		now, old, px := &runs[0], &runs[1], &runs[2]
		p50 := func(r *loadRun) float64 { return percentile(r.ms, 50) }
		t.Logf("latch serve's p50 over mcp-proxy's: %.2f× with the clients on 2026-07-28 (target ≤ 1.3×; rounds %s), "+
			"%.2f× with the same clients on the 2025 handshake, as they speak to mcp-proxy (rounds %s)",
			p50(now)/p50(px), roundsOf(ratios[0]), p50(old)/p50(px), roundsOf(ratios[1]))
		t.Logf("CPU a call, 2026-07-28 clients over 2025 ones through latch serve, latch %.2f×, the clients %.2f×, the upstream %.2f×; "+
			"all three together %.3f ms against %.3f ms (mcp-proxy's run: %.3f ms); latch serve's CPU a call over mcp-proxy's: %.2f× (2026), %.2f× (2025)",
			now.perCall(now.gw)/old.perCall(old.gw), now.perCall(now.clients)/old.perCall(old.clients), now.perCall(now.up)/old.perCall(old.up),
			now.perCall(now.gw+now.clients+now.up), old.perCall(old.gw+old.clients+old.up), px.perCall(px.gw+px.clients+px.up),
			now.perCall(now.gw)/px.perCall(px.gw), old.perCall(old.gw)/px.perCall(px.gw))
	}
	if tmpfs >= 0 {
		disk, free := &runs[0], &runs[tmpfs]
		p50 := func(r *loadRun) float64 { return percentile(r.ms, 50) }
		against := ""
		if proxied {
			against = fmt.Sprintf("; on tmpfs over mcp-proxy's: %.2f× (on disk %.2f×)", p50(free)/p50(&runs[2]), p50(disk)/p50(&runs[2]))
		}
		t.Logf("the decision's fsync: latch serve's p50 with its log on disk over on tmpfs %.2f×, its CPU a call %.2f×%s",
			p50(disk)/p50(free), disk.perCall(disk.gw)/free.perCall(free.gw), against)
	}
	if base >= 0 {
		now, before := &runs[0], &runs[base]
		t.Logf("latch serve against the build before the change, both with the clients on 2026-07-28: p50 %.2f×, its CPU a call %.2f×",
			percentile(now.ms, 50)/percentile(before.ms, 50), now.perCall(now.gw)/before.perCall(before.gw))
	}
}

// tmpfsDir is a new folder on /dev/shm (tmpfs on Linux), removed after
// t, or "" when there is none (said in t's log).
func tmpfsDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "latch-bench-")
	if err != nil {
		t.Logf("NOT COMPARED with the log on tmpfs: %v", err)
		return ""
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// logOnTmpfs fails t unless the gateway started with its state in dir
// wrote its session log there: the tmpfs figure is of a log on tmpfs.
func logOnTmpfs(t *testing.T, dir string) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "latch", "sessions", "*.jsonl"))
	if len(logs) == 0 {
		t.Errorf("the tmpfs gateway wrote no session log in %s", dir)
	}
}

// roundsOf is the rounds' ratios, in the order taken.
func roundsOf(ratios []float64) string {
	s := make([]string, len(ratios))
	for i, r := range ratios {
		s[i] = fmt.Sprintf("%.2f×", r)
	}
	return strings.Join(s, ", ")
}

// benchClient connects as name and makes n calls of tool, one after
// another (on the 2025 handshake with legacy); it returns each call's
// duration in ms, and the first failure (it stops there).
func benchClient(url, token, name, tool string, n int, legacy bool, hc *http.Client) ([]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	var opts []client.ClientOption
	if legacy {
		opts = append(opts, client.WithLegacyProtocolOnly()) //nolint:staticcheck // the 2025 handshake on purpose (fiftyClients)
	}
	c := client.NewClient(tr, opts...)
	defer func() { _ = c.Close() }()
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("%s: start: %w", name, err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil, fmt.Errorf("%s: initialize: %w", name, err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = tool
	out := make([]float64, 0, n)
	for i := range n {
		t0 := time.Now()
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return out, fmt.Errorf("%s: call %d: %w", name, i+1, err)
		}
		if res.IsError {
			return out, fmt.Errorf("%s: call %d: error result %+v", name, i+1, res.Content)
		}
		out = append(out, float64(time.Since(t0).Microseconds())/1000)
	}
	return out, nil
}

// vmHWM is the process's peak resident set size, from /proc (Linux).
func vmHWM(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return "unknown"
}

// cpuTime is the CPU time (user and system) the process used so far, from
// /proc (Linux; 0 elsewhere), in clock ticks of 10 ms.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which ends at the last ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	var user, sys int64
	_, _ = fmt.Sscan(f[11], &user)
	_, _ = fmt.Sscan(f[12], &sys)
	return time.Duration(user+sys) * 10 * time.Millisecond
}
