package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// TestTaskSurvivesKillAndResume: the model calls a tool that runs 5 s as
// a task on an mcp-go server living in this test process (over HTTP, so
// it outlives latch). latch (the built binary, -p) dies of SIGKILL while
// the task runs (killed once the task's id is in its session log) or
// after the task ended but before its result was logged (the task-ended
// crash point); `latch --resume ID -p ""` polls the same task and hands
// its result to the model: the tool ran once, one task was created, and
// the model got the result exactly once. The same on protocol 2026-07-28,
// through the tasks extension.
func TestTaskSurvivesKillAndResume(t *testing.T) {
	t.Parallel()
	// Each waits out its task's 5 s on servers of its own: side by side.
	t.Run("mid-task", func(t *testing.T) { t.Parallel(); taskKillAndResume(t, "", false) })
	t.Run("after the task ended", func(t *testing.T) { t.Parallel(); taskKillAndResume(t, "task-ended", false) })
	t.Run("2026-07-28 extension, mid-task", func(t *testing.T) { t.Parallel(); taskKillAndResume(t, "", true) })
}

// e2eTaskServer is what the test asks a task server.
type e2eTaskServer interface {
	Runs() int
	Created() []string
	Cancelled() []string
}

// taskKillAndResume runs the task call, kills latch (at crash point
// crash, or from outside once the task started when crash is ""), and
// resumes it. ext: the server speaks 2026-07-28 and its tasks extension
// (protocol auto), else 2025-11-25's tasks (pinned).
func taskKillAndResume(t *testing.T, crash string, ext bool) {
	var tasks e2eTaskServer
	var h *httptest.Server
	protocol := "2025-11-25"
	if ext {
		ts := mcptestutil.NewExtTaskServer(5*time.Second, "")
		tasks, h, protocol = ts, httptest.NewServer(ts.Handler()), "auto"
	} else {
		ts := mcptestutil.NewTaskServer(5*time.Second, "")
		// Stateless: mcp-go ties a task to the HTTP session that made it,
		// and a restarted latch opens another.
		tasks, h = ts, servertest.NewTestStreamableHTTPServer(ts.MCPServer, mcpserver.WithStateLess(true))
	}
	defer h.Close()
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion", "tools"}})
	defer fake.Close()
	slow := api.NewToolCallFunctionArguments()
	fake.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_task1",
			Function: api.ToolCallFunction{Name: "tasks__slow", Arguments: slow}}}}}},
		ollamatest.TextTurn("The slow job is done."),
	)
	env := cleanEnv(t, fake.Host(), nil)
	var state, cwd string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			state = filepath.Join(v, "latch", "sessions")
			cwd = filepath.Join(filepath.Dir(v), "cwd")
		}
	}
	cfg, err := json.Marshal(map[string]any{
		"permissions": map[string]any{"mode": "auto"},
		"mcpServers":  map[string]any{"tasks": map[string]any{"url": h.URL + "/mcp", "protocol": protocol}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(t.TempDir(), "latch.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	latch := func(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
		cmd := exec.Command(bin, append([]string{"--config", cfgPath, "--model", e2eModel}, args...)...)
		cmd.Env, cmd.Dir = env, cwd
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return cmd, &stdout, &stderr
	}

	first, _, firstErr := latch("-p", "run the slow job")
	if crash != "" {
		first.Env = append(first.Env, "LATCH_TEST_CRASH_AT="+crash)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	want := `"type":"tool_task"`
	if crash != "" {
		want = `"status":"completed"`
	}
	var logPath string
	mcptestutil.WaitFor(t, time.Minute, "the task in the session log", func() bool {
		logs, _ := filepath.Glob(filepath.Join(state, "*.jsonl"))
		for _, p := range logs {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(want)) {
				logPath = p
				return true
			}
		}
		return false
	})
	if crash == "" {
		_ = first.Process.Kill() // SIGKILL, of this test's own child
	}
	err = first.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the first latch ended with %v, want SIGKILL; stderr:\n%s", err, firstErr)
	}
	if b, _ := os.ReadFile(logPath); bytes.Contains(b, []byte(`"type":"tool_result"`)) {
		t.Fatalf("the killed latch logged a result:\n%s", b)
	}
	if len(tasks.Cancelled()) != 0 {
		t.Fatalf("the task was cancelled: %v", tasks.Cancelled())
	}

	id := strings.TrimSuffix(filepath.Base(logPath), ".jsonl")
	second, stdout, stderr := latch("--resume", id, "-p", "")
	done := make(chan error, 1)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- second.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = second.Process.Kill()
		<-done
		t.Fatalf("the resumed latch did not end; stderr:\n%s", stderr)
	}
	if err != nil || strings.TrimSpace(stdout.String()) != "The slow job is done." {
		t.Fatalf("resume: %v, stdout %q, stderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stderr.String(), "polls that task again") {
		t.Errorf("the resume did not say it polls the task; stderr:\n%s", stderr)
	}
	if n, created := tasks.Runs(), tasks.Created(); n != 1 || len(created) != 1 {
		t.Fatalf("the tool ran %d times, %d tasks created; want once", n, len(created))
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests, want 2", len(reqs))
	}
	var results []string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 1 || results[0] != "slow done 1" {
		t.Fatalf("the model was given %q, want the task's result once", results)
	}
}
