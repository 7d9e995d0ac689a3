package cli

// The gateway's overhead per allowed call over stdio: the official SDK
// client calling server-memory's read_graph through latch serve --stdio,
// against calling server-memory directly. A measurement, not a pass/fail
// threshold; run it with (LATCH_BENCH_BASE_BIN: the binary before a
// change, measured in the same run; see serve_compare_bench_test.go):
//
//	LATCH_SERVE_BENCH=1 go test -count=1 -run TestServeOverhead -v .

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"latch/mcp/mcptestutil"
)

func TestServeOverhead(t *testing.T) {
	if os.Getenv("LATCH_SERVE_BENCH") != "1" {
		t.Skip("a measurement; set LATCH_SERVE_BENCH=1 to run it")
	}
	mem := mcptestutil.NPMBin(t, "mcp-server-memory")
	memEnv := map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"mem": map[string]any{"command": mem, "env": memEnv, "allow": []string{"read_graph"}}}}, false)
	const n = 500
	warm := []any{}
	for range 20 {
		warm = append(warm, map[string]any{"name": "mem__read_graph"})
	}
	quiet := map[string]any{"command": r.bin, "args": []string{"--config", r.cfg, "serve", "--stdio", "--quiet"}}
	via := sdkClient(t, r, map[string]any{"stdio": quiet, "calls": warm,
		"repeat": map[string]any{"n": n, "call": map[string]any{"name": "mem__read_graph"}}})
	for i := range warm {
		warm[i] = map[string]any{"name": "read_graph"}
	}
	direct := sdkClient(t, r, map[string]any{"stdio": map[string]any{"command": mem, "env": memEnv}, "calls": warm,
		"repeat": map[string]any{"n": n, "call": map[string]any{"name": "read_graph"}}})
	if len(via.DurationsMs) != n || len(direct.DurationsMs) != n {
		t.Fatalf("calls done: %d through latch, %d direct (errors: %v, %v)", len(via.DurationsMs), len(direct.DurationsMs),
			via.RepeatError, direct.RepeatError)
	}
	pv, pd := percentile(via.DurationsMs, 50), percentile(direct.DurationsMs, 50)
	t.Logf("read_graph over stdio, %d calls: p50 %.3f ms through latch serve, %.3f ms direct: overhead %.3f ms p50 (target ≤ 0.7 ms); p99 %.3f / %.3f ms",
		n, pv, pd, pv-pd, percentile(via.DurationsMs, 99), percentile(direct.DurationsMs, 99))
	if base := benchBase(t); base != "" {
		for i := range warm {
			warm[i] = map[string]any{"name": "mem__read_graph"}
		}
		before := sdkClient(t, r, map[string]any{"stdio": map[string]any{"command": base, "args": quiet["args"]}, "calls": warm,
			"repeat": map[string]any{"n": n, "call": map[string]any{"name": "mem__read_graph"}}})
		if len(before.DurationsMs) != n {
			t.Fatalf("calls done through the binary before the change: %d (%v)", len(before.DurationsMs), before.RepeatError)
		}
		pb := percentile(before.DurationsMs, 50)
		t.Logf("before the change: p50 %.3f ms, overhead %.3f ms p50; this one's overhead is %.2f× its", pb, pb-pd, (pv-pd)/(pb-pd))
	}
}

// percentile is the p-th percentile (nearest rank) of ms.
func percentile(ms []float64, p int) float64 {
	s := slices.Clone(ms)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(i-1, 0)]
}
