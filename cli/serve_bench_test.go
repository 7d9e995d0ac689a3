package cli

// The gateway's overhead per allowed call over stdio: the official SDK
// client calling server-memory's read_graph through latch serve --stdio,
// against calling server-memory directly. A measurement, not a pass/fail
// threshold; run it with (the build before the
// change is measured in the same run: benchbase_test.go):
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
	// Rounds of n calls each way in turn (through latch, directly, through
	// the binary before the change), so that a machine whose load drifts
	// slows each alike.
	const rounds, n = 5, 100
	warmed := func(name string) []any {
		warm := []any{}
		for range 20 {
			warm = append(warm, map[string]any{"name": name})
		}
		return warm
	}
	args := []string{"--config", r.cfg, "serve", "--stdio", "--quiet"}
	// way is one way of calling read_graph: a name, the stdio command
	// the SDK client starts, and the tool's name there.
	type way struct {
		name  string
		stdio map[string]any
		tool  string
	}
	ways := []way{
		{"via", map[string]any{"command": r.bin, "args": args}, "mem__read_graph"},
		{"direct", map[string]any{"command": mem, "env": memEnv}, "read_graph"},
	}
	// This build with its session log on tmpfs, where fsync costs nothing:
	// how much of the overhead is the decision's fsync.
	if dir := tmpfsDir(t); dir != "" {
		ways = append(ways, way{"tmpfs", map[string]any{"command": r.bin, "args": args, "env": map[string]string{"XDG_STATE_HOME": dir}}, "mem__read_graph"})
		t.Cleanup(func() { logOnTmpfs(t, dir) })
	}
	if base := benchBase(t); base != "" {
		ways = append(ways, way{"before", map[string]any{"command": base, "args": args}, "mem__read_graph"})
	}
	ms := map[string][]float64{}
	for range rounds {
		for _, w := range ways {
			out := sdkClient(t, r, map[string]any{"stdio": w.stdio, "calls": warmed(w.tool),
				"repeat": map[string]any{"n": n, "call": map[string]any{"name": w.tool}}})
			if len(out.DurationsMs) != n {
				t.Fatalf("%s: %d calls of %d done (%v)", w.name, len(out.DurationsMs), n, out.RepeatError)
			}
			ms[w.name] = append(ms[w.name], out.DurationsMs...)
		}
	}
	pv, pd := percentile(ms["via"], 50), percentile(ms["direct"], 50)
	t.Logf("read_graph over stdio, %d calls: p50 %.3f ms through latch serve, %.3f ms direct: overhead %.3f ms p50 (target ≤ 0.7 ms); p99 %.3f / %.3f ms",
		rounds*n, pv, pd, pv-pd, percentile(ms["via"], 99), percentile(ms["direct"], 99))
	if free := ms["tmpfs"]; len(free) > 0 {
		pf := percentile(free, 50)
		t.Logf("this one with its log on tmpfs (fsync free): p50 %.3f ms, overhead %.3f ms p50", pf, pf-pd)
	}
	if before := ms["before"]; len(before) > 0 {
		pb := percentile(before, 50)
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
