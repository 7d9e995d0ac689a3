package cli

// Many parked calls: latch serve --stdio in approve mode, in front of the
// stdio fake, takes 10,000 calls that all park (two groups of 1,000
// identical ones first); then the gateway's memory (VmRSS, and the peak
// VmHWM), its session log's size, the backlog figures of this build
// against the previous one (serve_backlog_test.go: latch approvals, one
// latch approve, the inbox's bulk decision of 1,000 identical calls, each
// of which must run exactly once), and the time a restarted gateway takes
// to take them up. A measurement, not a pass/fail threshold on time (the
// memory bound of 100 MB is the issue's, and checked); run it with:
//
//	LATCH_SERVE_BENCH=1 go test -count=1 -run TestServeParkedAtScale -v .
//
// LATCH_PARK_N changes the number of calls.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
)

func TestServeParkedAtScale(t *testing.T) {
	if os.Getenv("LATCH_SERVE_BENCH") != "1" {
		t.Skip("a measurement; set LATCH_SERVE_BENCH=1 to run it")
	}
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("LATCH_PARK_N")); err == nil && v > 0 {
		n = v
	}
	r := newPromptRig(t, map[string]any{
		"permissions": map[string]any{"mode": "approve"},
		"serve": map[string]any{"await_poll": "100ms", "park_max_calls_per_client": 20000, "park_max_calls": 20000,
			"park_max_bytes_per_client": 1 << 30, "park_max_bytes": 1 << 30},
		"mcpServers": map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	}, false)

	gw := startServeStdio(t, r, "--quiet")
	start := time.Now()
	const bulk = 1000
	bulkBase := gw.parkMany(t, bulk, func(int) string { return "bulk for the previous build" })
	bulkNew := gw.parkMany(t, bulk, func(int) string { return "bulk for this build" })
	ids := append(append(bulkBase, bulkNew...), gw.parkMany(t, n-2*bulk, func(i int) string { return fmt.Sprintf("parked call %d", i) })...)
	t.Logf("%d calls parked in %v (%.0f calls/s)", n, time.Since(start).Round(time.Millisecond),
		float64(n)/time.Since(start).Seconds())
	rss, hwm := procMemory(t, gw.cmd.Process.Pid)
	t.Logf("gateway with %d parked calls: VmRSS %.1f MB, VmHWM %.1f MB (bound: RSS ≤ 100 MB)", n, rss, hwm)
	if rss > 100 {
		t.Errorf("RSS %.1f MB with %d parked calls, over the 100 MB bound", rss, n)
	}
	logs, _ := filepath.Glob(filepath.Join(r.state, "*.jsonl"))
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil {
			t.Logf("session log %s: %.1f MB (%d bytes per parked call)", filepath.Base(l),
				float64(fi.Size())/(1<<20), fi.Size()/int64(n))
		}
	}
	decided := backlogFigures(t, r, n, ids[2*bulk:], bulkBase, bulkNew)
	gw.stop(t)

	start = time.Now()
	gw = startServeStdio(t, r)
	took := gw.waitLine(t, "parked calls wait for a decision")
	t.Logf("restart: %q %v after the start", took, time.Since(start).Round(time.Millisecond))
	// backlogFigures decided 3 calls one by one and a bulk per build.
	if left := n - decided; !strings.Contains(took, fmt.Sprintf(" %d parked calls", left)) {
		t.Errorf("the restarted gateway says %q, want %d calls waiting", took, left)
	}
	rss, hwm = procMemory(t, gw.cmd.Process.Pid)
	t.Logf("restarted gateway with %d parked calls: VmRSS %.1f MB, VmHWM %.1f MB (bound: RSS ≤ 100 MB)", n, rss, hwm)
	if rss > 100 {
		t.Errorf("RSS %.1f MB after a restart with %d parked calls, over the 100 MB bound", rss, n)
	}
	if got := gw.await(t, ids[n/2]); !strings.Contains(got, "awaiting_approval") {
		t.Errorf("a call parked before the restart, polled after it: %s", got)
	}
	gw.stop(t)
}

// backlogFigures measures, with n calls waiting, latch approvals (3 runs
// each, after a first run of this build that builds its index of parked
// calls), one latch approve (3 each, of the calls in single) and the
// inbox's bulk approval of the 1,000 identical calls (once each, of
// bulkBase and bulkNew), by the previous build and this one, alternately.
// Without a previous build (BENCH_BASE=none, or none could be built),
// this build runs its own half alone, saying so. It returns how many
// calls were decided.
func backlogFigures(t *testing.T, r *promptRig, n int, single, bulkBase, bulkNew []string) (decided int) {
	t.Helper()
	base, rev := baseBinary(t)
	builds := []struct{ name, bin string }{{"previous (" + rev + ")", base}, {"this build", r.bin}}
	if base == "" {
		builds = builds[1:]
		t.Logf("no build before the change: this build's half of each figure alone (3 latch approve, 1 bulk of %d), nothing compared", len(bulkNew))
	}
	wall, cpu := timeApprovals(t, r, r.bin, single[0], single[len(single)-1])
	t.Logf("latch approvals, this build's first run with %d waiting (it builds the index): %v wall, %v CPU", n,
		wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
	for i := range 3 {
		for _, b := range builds {
			wall, cpu := timeApprovals(t, r, b.bin, single[0], single[len(single)-1])
			t.Logf("latch approvals with %d waiting, %s, run %d: %v wall, %v CPU", n, b.name, i+1,
				wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
		}
	}
	next := len(single) - 1
	for i := range 3 {
		for _, b := range builds {
			id := single[next]
			next--
			ask, apply := timeApprove(t, r, b.bin, id)
			t.Logf("latch approve with %d waiting, %s, run %d: %v (%v to its question, %v from Enter to its exit)", n, b.name, i+1,
				(ask + apply).Round(time.Millisecond), ask.Round(time.Millisecond), apply.Round(time.Millisecond))
			ranOnce(t, r.state, []string{id})
			decided++
		}
	}
	for i, b := range builds {
		// The first bulk is of the oldest calls, which the inbox decides
		// first: bulkBase, this build's when it runs alone.
		ids := [][]string{bulkBase, bulkNew}[i]
		took := timeBulk(t, r, b.bin, len(ids))
		t.Logf("latch inbox, bulk approval of %d identical calls with %d waiting, %s: %v", len(ids), n, b.name, took.Round(time.Millisecond))
		mcptestutil.WaitFor(t, time.Minute, "the approved calls run", func() bool {
			results := loggedResults(t, r.state)
			for _, id := range ids {
				if results[id] == 0 {
					return false
				}
			}
			return true
		})
		ranOnce(t, r.state, ids)
		decided += len(ids)
	}
	return decided
}

// stdioGateway is latch serve --stdio with an mcp-go client on its pipes.
type stdioGateway struct {
	cmd    *exec.Cmd
	client *client.Client
	lines  chan string // its stderr, line by line
	exited chan struct{}
}

// startServeStdio starts latch serve --stdio on the rig's config (extra
// flags after serve) and initializes an MCP session with it.
func startServeStdio(t *testing.T, r *promptRig, extra ...string) *stdioGateway {
	t.Helper()
	cmd := exec.Command(r.bin, append([]string{"--config", r.cfg, "serve", "--stdio"}, extra...)...)
	cmd.Env, cmd.Dir = r.env, r.cwd
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &stdioGateway{cmd: cmd, lines: make(chan string, 64), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case g.lines <- sc.Text():
			default: // nobody waits for it
			}
		}
		_ = cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-g.exited
	})
	g.client = client.NewClient(transport.NewIO(stdout, stdin, io.NopCloser(strings.NewReader(""))))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := g.client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "park-bench", Version: "1"}
	if _, err := g.client.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return g
}

// parkMany makes n calls of fake__echo with the messages msg(i), 8 at a
// time, each of which must park, and returns their invocation ids in
// order.
func (g *stdioGateway) parkMany(t *testing.T, n int, msg func(int) string) []string {
	t.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				req := mcpgo.CallToolRequest{}
				req.Params.Name = "fake__echo"
				req.Params.Arguments = map[string]any{"message": msg(i)}
				res, err := g.client.CallTool(context.Background(), req)
				id := ""
				if err == nil {
					id = parkedID(res)
				}
				mu.Lock()
				if id == "" && failed == nil {
					failed = fmt.Errorf("call %d did not park: %v %+v", i, err, res)
				}
				ids[i] = id
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	return ids
}

// parkedID is the invocation id of an awaiting result, or "".
func parkedID(res *mcpgo.CallToolResult) string {
	m, ok := res.StructuredContent.(map[string]any)
	if !ok || res.IsError || m["status"] != "awaiting_approval" {
		return ""
	}
	id, _ := m["invocation_id"].(string)
	return id
}

// await polls a parked call once and returns the result's text.
func (g *stdioGateway) await(t *testing.T, id string) string {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "latch_await_decision"
	req.Params.Arguments = map[string]any{"invocation_id": id}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := g.client.CallTool(ctx, req)
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("latch_await_decision %s: %v %+v", id, err, res)
	}
	text, _ := mcpgo.AsTextContent(res.Content[0])
	if text == nil {
		return ""
	}
	return text.Text
}

// waitLine waits (bounded) for a line on the gateway's stderr holding
// want, and returns it.
func (g *stdioGateway) waitLine(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(5 * time.Minute)
	for {
		select {
		case l := <-g.lines:
			if strings.Contains(l, want) {
				return l
			}
		case <-g.exited:
			t.Fatalf("latch serve exited before saying %q", want)
		case <-deadline:
			t.Fatalf("latch serve did not say %q within 5 minutes", want)
		}
	}
}

// stop ends the gateway as a client does, by closing its stdin, and waits
// for it to exit.
func (g *stdioGateway) stop(t *testing.T) {
	t.Helper()
	_ = g.client.Close()
	select {
	case <-g.exited:
	case <-time.After(time.Minute):
		t.Fatal("latch serve did not exit within a minute of its stdin closing")
	}
}

// procMemory is a process's VmRSS and VmHWM, in MB.
func procMemory(t *testing.T, pid int) (rss, hwm float64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc status to read memory from: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch {
		case err != nil:
		case k == "VmRSS":
			rss = kb / 1024
		case k == "VmHWM":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}
