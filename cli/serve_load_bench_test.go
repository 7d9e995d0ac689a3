package cli

// 50 clients at once, each making 200 allowed calls one after another
// through latch serve --listen with its default limits: the calls that
// failed (there must be none), the latency of a call (p50, p99) and the
// gateway's peak RSS. A measurement; run it with:
//
//	LATCH_SERVE_BENCH=1 go test -count=1 -run TestServeFiftyClients -v .

import (
	"context"
	"fmt"
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
	const clients, calls, token = 50, 200, "bench-token"
	mem := mcptestutil.NPMBin(t, "mcp-server-memory")
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"mem": map[string]any{"command": mem, "allow": []string{"read_graph"},
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}}}}, false)
	srv := startServeHTTP(t, r, token, "--quiet")

	ms, failures, wall := fiftyClients(srv.url, token, "mem__read_graph", clients, calls, false)
	hwm, cpu := vmHWM(srv.cmd.Process.Pid), cpuTime(srv.cmd.Process.Pid)
	t.Logf("%d clients × %d calls of read_graph through latch serve --listen: %d done, %d failed in %v (%.0f calls/s); "+
		"latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; latch serve's peak RSS (VmHWM) %s, its CPU time %v (%.3f ms a call)",
		clients, calls, len(ms), clients*calls-len(ms), wall.Round(time.Millisecond), float64(len(ms))/wall.Seconds(),
		percentile(ms, 50), percentile(ms, 99), percentile(ms, 100), hwm, cpu, float64(cpu.Microseconds())/1000/float64(max(len(ms), 1)))
	if len(failures) > 0 || len(ms) != clients*calls {
		t.Errorf("%d calls of %d done; failures: %s", len(ms), clients*calls, strings.Join(failures, "\n"))
	}
	// The same load, the same upstream, in the same run: the binary
	// before the change, and TBXark/mcp-proxy (which has no gate, no log
	// and no limits: what a bare proxy costs).
	p50 := percentile(ms, 50)
	if base := benchBase(t); base != "" {
		rb := *r
		rb.bin = base
		bsrv := startServeHTTP(t, &rb, token, "--quiet")
		bms, bfail, bwall := fiftyClients(bsrv.url, token, "mem__read_graph", clients, calls, false)
		if len(bms) == 0 {
			t.Fatalf("before the change: no call done; failures: %s", strings.Join(bfail, "\n"))
		}
		bcpu := cpuTime(bsrv.cmd.Process.Pid)
		t.Logf("before the change: %d done, %d failed in %v (%.0f calls/s); p50 %.2f ms, p99 %.2f ms: this one's p50 is %.2f× its; "+
			"its CPU time %v (%.3f ms a call: this one's is %.2f× its)",
			len(bms), len(bfail), bwall.Round(time.Millisecond), float64(len(bms))/bwall.Seconds(),
			percentile(bms, 50), percentile(bms, 99), p50/percentile(bms, 50),
			bcpu, float64(bcpu.Microseconds())/1000/float64(len(bms)), float64(cpu)/float64(max(bcpu, 1)))
	}
	if proxy := mcpProxy(t); proxy != "" {
		url, pid := startMCPProxy(t, proxy, mem, filepath.Join(t.TempDir(), "memory.jsonl"), token)
		pms, pfail, pwall := fiftyClients(url, token, "read_graph", clients, calls, false)
		if len(pfail) > 0 || len(pms) == 0 {
			t.Fatalf("mcp-proxy: %d calls done; failures: %s", len(pms), strings.Join(pfail, "\n"))
		}
		pcpu := cpuTime(pid)
		t.Logf("TBXark/mcp-proxy: %d done, %d failed in %v (%.0f calls/s); p50 %.2f ms, p99 %.2f ms: latch serve's p50 is %.2f× its (target ≤ 1.3×); "+
			"its CPU time %v (%.3f ms a call: latch serve's is %.2f× its)",
			len(pms), len(pfail), pwall.Round(time.Millisecond), float64(len(pms))/pwall.Seconds(),
			percentile(pms, 50), percentile(pms, 99), p50/percentile(pms, 50),
			pcpu, float64(pcpu.Microseconds())/1000/float64(len(pms)), float64(cpu)/float64(max(pcpu, 1)))
		// mcp-proxy's mcp-go offers no 2026-07-28 stateless form, so the
		// clients spoke the 2025 protocol to it: the same clients held to
		// that handshake against latch serve, for a like-for-like ratio.
		before := cpuTime(srv.cmd.Process.Pid)
		lms, lfail, lwall := fiftyClients(srv.url, token, "mem__read_graph", clients, calls, true)
		if len(lfail) > 0 || len(lms) == 0 {
			t.Fatalf("latch serve, 2025 handshake: %d calls done; failures: %s", len(lms), strings.Join(lfail, "\n"))
		}
		lcpu := cpuTime(srv.cmd.Process.Pid) - before
		t.Logf("latch serve with the clients on the 2025 handshake, as they spoke to mcp-proxy: %d done in %v (%.0f calls/s); p50 %.2f ms, p99 %.2f ms: %.2f× mcp-proxy's p50; "+
			"CPU %.3f ms a call (%.2f× mcp-proxy's)",
			len(lms), lwall.Round(time.Millisecond), float64(len(lms))/lwall.Seconds(), percentile(lms, 50), percentile(lms, 99),
			percentile(lms, 50)/percentile(pms, 50), float64(lcpu.Microseconds())/1000/float64(len(lms)), float64(lcpu)/float64(max(pcpu, 1)))
	}
}

// benchClient connects as name and makes n calls of tool, one after
// another (on the 2025 handshake with legacy); it returns each call's
// duration in ms, and the first failure (it stops there).
func benchClient(url, token, name, tool string, n int, legacy bool) ([]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
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
