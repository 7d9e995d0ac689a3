package cli

// latch serve killed (SIGKILL) at many points in time while calls are in
// flight, then started again: no call runs twice, none runs before its
// "allowed" is in the log, and every result a client was given is in the
// log. The kill comes after the N-th line written to the session log
// ($LATCH_TEST_CRASH_AFTER_LINES, session/eventlog/crash.go: before that
// line's sync), N sampled at random over a whole run's lines, so it lands
// between any two steps of any of the calls in flight, not only at the
// chosen ones of crash_test.go.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
	"latch/session"
)

func TestServeKillNineAtSampledPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("kills latch serve a dozen times")
	}
	fake := mcptestutil.BuildFakeMCP(t)
	ran := filepath.Join(t.TempDir(), "ran.log") // the upstream's witness: one line per run
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"up": map[string]any{"command": fake, "args": []string{"-call-log", ran}, "allow": []string{"echo"}}}}, false)
	const callers, each = 8, 5
	acked := map[string]bool{} // the messages whose result a client got

	// A run without a kill: how many lines a run writes.
	for _, m := range killNineRun(t, r, 0, "calibrate", callers, each) {
		acked[m] = true
	}
	lines := countLogLines(t, r.state)
	if len(acked) != callers*each || lines < callers*each*3 {
		t.Fatalf("the run without a kill: %d of %d calls answered, %d log lines", len(acked), callers*each, lines)
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("a run writes %d lines; kill points sampled with seed %d", lines, seed)
	for i := range 12 {
		n := 1 + rng.IntN(lines)
		got := killNineRun(t, r, n, fmt.Sprintf("k%02d", i), callers, each)
		t.Logf("killed after log line %d: %d of %d calls answered", n, len(got), callers*each)
		for _, m := range got {
			acked[m] = true
		}
	}
	// Started again after the kills, it serves as before.
	if got := killNineRun(t, r, 0, "after", callers, each); len(got) != callers*each {
		t.Fatalf("after the kills: %d of %d calls answered", len(got), callers*each)
	} else {
		for _, m := range got {
			acked[m] = true
		}
	}

	allowed, results := loggedCalls(t, r.state)
	runs := map[string]int{}
	byMsg := map[string]string{}
	for _, line := range readLines(t, ran) {
		id, msg, _ := strings.Cut(line, " ")
		runs[id]++
		if runs[id] == 2 {
			t.Errorf("call %s ran twice", id)
		}
		if !allowed[id] {
			t.Errorf("call %s (%s) ran with no \"allowed\" in the log", id, msg)
		}
		byMsg[msg] = id
	}
	for m := range acked {
		id, ok := byMsg[m]
		switch {
		case !ok:
			t.Errorf("the client got the result of %s, which never ran", m)
		case !results[id]:
			t.Errorf("the client got the result of %s (call %s), which is not in the log", m, id)
		}
	}
	t.Logf("%d calls ran, %d answered, over %d runs", len(runs), len(acked), 14)
}

// killNineRun starts latch serve --stdio (killed after log line n when n
// > 0), makes callers × each calls of up__echo at once, each with its own
// message, and returns the messages whose result came back. It returns
// once latch serve has exited (killed) or been closed.
func killNineRun(t *testing.T, r *promptRig, n int, run string, callers, each int) []string {
	t.Helper()
	env := append([]string{}, r.env...)
	if n > 0 {
		env = append(env, fmt.Sprintf("LATCH_TEST_CRASH_AFTER_LINES=%d", n))
	}
	tr := transport.NewStdio(r.bin, env, "--config", r.cfg, "serve", "--stdio", "--quiet")
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(2*time.Minute))
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatalf("%s: start latch serve: %v", run, err)
	}
	c := client.NewClient(tr)
	defer func() { _ = c.Close() }()
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "killnine", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		if n > 0 {
			return nil // killed before it answered: a point in time too
		}
		t.Fatalf("%s: initialize: %v", run, err)
	}
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			for j := range each {
				msg := fmt.Sprintf("%s-%d-%d", run, i, j)
				var req mcp.CallToolRequest
				req.Params.Name = "up__echo"
				req.Params.Arguments = map[string]any{"message": msg}
				res, err := c.CallTool(ctx, req)
				if err != nil {
					if n == 0 {
						t.Errorf("%s: call %s: %v", run, msg, err)
					}
					return // killed
				}
				if res.IsError || len(res.Content) != 1 {
					t.Errorf("%s: call %s: %+v", run, msg, res)
					return
				}
				if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != msg {
					t.Errorf("%s: call %s answered %+v", run, msg, res.Content)
					return
				}
				mu.Lock()
				got = append(got, msg)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return got
}

// logFiles are the session logs in dir.
func logFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no session logs in %s (%v)", dir, err)
	}
	return files
}

// countLogLines is how many lines the session logs in dir hold.
func countLogLines(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, f := range logFiles(t, dir) {
		n += len(readLines(t, f))
	}
	return n
}

// loggedCalls are the call ids with an "allowed" permission and those
// with a tool_result in the session logs in dir, each of which must load
// (session.LoadLog: no line torn but a last one, skipped with a warning).
func loggedCalls(t *testing.T, dir string) (allowed, results map[string]bool) {
	t.Helper()
	allowed, results = map[string]bool{}, map[string]bool{}
	for _, f := range logFiles(t, dir) {
		if _, _, err := session.LoadLog(f); err != nil {
			t.Errorf("%s after the kills: %v", filepath.Base(f), err)
		}
		for _, line := range readLines(t, f) {
			var e struct {
				Type     string `json:"type"`
				CallID   string `json:"call_id"`
				Decision string `json:"decision"`
			}
			if json.Unmarshal([]byte(line), &e) != nil {
				continue
			}
			switch {
			case e.Type == session.TypePermission && e.Decision == "allowed":
				allowed[e.CallID] = true
			case e.Type == session.TypeToolResult:
				results[e.CallID] = true
			}
		}
	}
	return allowed, results
}

// readLines are the file's lines (none when it does not exist).
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
