package cli

// Crash tests: the real latch binary, in -p mode, killed with SIGKILL at each
// crash point of a tool call (LATCH_TEST_CRASH_AT, see session/crash.go;
// only a build with the latchtest tag has them, which latchBinary makes),
// then resumed from its session log. The tool is a write to the npm
// server-memory, behind the approve gate; the witnesses are on disk and
// outside latch:
//
//   - the memory file (MEMORY_FILE_PATH) shows whether the write ran;
//   - a copy of every JSON-RPC line latch sent to the server (tee) counts
//     the tools/call requests. create_entities ignores a name it already has,
//     so the memory file alone could not tell one run from two: the tee log
//     can.
//
// Each test asserts that no decision is lost (one made before the crash is
// not asked again; one that never reached the disk is asked again), that the
// write is sent at most once (exactly once where the user approved and the
// call was not in doubt), and that a call cut short is shown as in doubt and
// not run again on its own.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// crashRig is one session's world: the fake Ollama, the memory server behind
// a wrapper that logs what it receives, a config in approve mode, and clean
// HOME/XDG directories.
type crashRig struct {
	t        *testing.T
	bin      string
	fake     *ollamatest.Server
	env      []string
	dir      string // working directory (no latch.json in it)
	root     string // the config, the wrapper's files and the witnesses
	cfg      string
	memFile  string // the memory server's file: the write's witness
	callLog  string // every line latch sent to the memory server
	pidLog   string // the pid of each wrapper shell started
	stateDir string // $XDG_STATE_HOME/latch/sessions
}

// crashRun is how one latch process ended.
type crashRun struct {
	stdout, stderr string
	code           int            // exit status, -1 when killed by a signal
	signal         syscall.Signal // 0 unless killed by a signal
}

// memWrapper runs server-memory with its input copied to $CALL_LOG. With
// $LATCH_TEST_HOLD_RESULT set (seconds), the reply that names Ada is held
// that long before it reaches latch: the write is done, latch does not know
// yet.
const memWrapper = `echo $$ >> "$PID_LOG"
tee -a "$CALL_LOG" | "$MEM_BIN" | while IFS= read -r line; do
	case "$line" in *Ada*) [ -n "$LATCH_TEST_HOLD_RESULT" ] && sleep "$LATCH_TEST_HOLD_RESULT" ;; esac
	printf '%s\n' "$line"
done`

func newCrashRig(t *testing.T) *crashRig {
	t.Helper()
	mem := mcptestutil.NPMBin(t, "mcp-server-memory")
	r := newRig(t)
	r.memFile = filepath.Join(r.root, "memory.jsonl")
	r.writeConfig(map[string]any{
		"permissions": map[string]any{"mode": "approve"},
		"mcpServers": map[string]any{"mem": map[string]any{
			"command": "/bin/sh",
			"args":    []string{"-c", memWrapper},
			"env": map[string]string{"MEMORY_FILE_PATH": r.memFile, "CALL_LOG": r.callLog,
				"PID_LOG": r.pidLog, "MEM_BIN": mem},
			"env_inherit": []string{"LATCH_TEST_HOLD_RESULT"},
		}},
	})
	return r
}

// newRig is a crash rig without its config (see writeConfig): the latch
// binary, the fake Ollama, clean directories, and the files a server's
// wrapper writes its input (callLog) and its pid (pidLog) to; every
// wrapper started is waited for, or killed, when the test ends.
func newRig(t *testing.T) *crashRig {
	t.Helper()
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	r := &crashRig{t: t, bin: bin, fake: fake, env: cleanEnv(t, fake.Host(), nil), root: t.TempDir()}
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			r.dir = filepath.Join(filepath.Dir(v), "cwd")
		}
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			r.stateDir = filepath.Join(v, "latch", "sessions")
		}
	}
	r.callLog = filepath.Join(r.root, "calls.jsonl")
	r.pidLog = filepath.Join(r.root, "pids")
	// A server left behind by a killed latch exits when its input closes;
	// one that does not is killed here, by its own process group.
	t.Cleanup(func() {
		for _, pid := range r.wrapperPids() {
			if !mcptestutil.WaitProcessGone(pid, 10*time.Second) {
				t.Errorf("server %d outlived latch", pid)
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
	})
	return r
}

// writeConfig writes the rig's config file.
func (r *crashRig) writeConfig(cfg map[string]any) {
	r.t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.cfg = filepath.Join(r.root, "latch.json")
	if err := os.WriteFile(r.cfg, b, 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// run runs latch with args (after --config and --model) to its end. crash,
// when set, is LATCH_TEST_CRASH_AT; extra are more KEY=VALUE entries.
func (r *crashRig) run(crash string, extra []string, args ...string) crashRun {
	r.t.Helper()
	cmd, stdout, stderr := r.command(crash, extra, args...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("start latch: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill() // this test's own child, by its pid
		<-done
		r.t.Fatalf("latch %s did not end within 2 minutes; stderr:\n%s", strings.Join(cmd.Args[1:], " "), stderr.String())
	}
	res := crashRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.signal = ws.Signal()
		}
	} else if err != nil {
		r.t.Fatalf("latch: %v", err)
	}
	r.t.Logf("latch %s (crash at %q): exit %d, signal %v, after %v\nstdout: %s\nstderr: %s",
		strings.Join(cmd.Args[1:], " "), crash, res.code, res.signal, time.Since(start).Round(time.Millisecond), res.stdout, res.stderr)
	return res
}

// command is latch with args (after --config and --model), its output
// kept; crash and extra as for run.
func (r *crashRig) command(crash string, extra []string, args ...string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
	args = append([]string{"--config", r.cfg, "--model", e2eModel}, args...)
	cmd = exec.Command(r.bin, args...)
	cmd.Env = append(append([]string(nil), r.env...), extra...)
	if crash != "" {
		cmd.Env = append(cmd.Env, "LATCH_TEST_CRASH_AT="+crash)
	}
	cmd.Dir = r.dir
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd, stdout, stderr
}

// crashed runs latch with the crash point set and checks that it died of
// SIGKILL there; then it waits until the memory server left behind has
// finished (whatever it received is on disk).
func (r *crashRig) crashed(point string, extra []string, args ...string) {
	r.t.Helper()
	res := r.run(point, extra, args...)
	if res.signal != syscall.SIGKILL {
		r.t.Fatalf("crash at %s: latch ended with status %d (signal %v), want death by SIGKILL", point, res.code, res.signal)
	}
	r.waitServersGone()
}

// waitServersGone waits until every memory server started so far has exited.
func (r *crashRig) waitServersGone() {
	r.t.Helper()
	start := time.Now()
	defer func() { r.t.Logf("memory servers gone after %v", time.Since(start).Round(time.Millisecond)) }()
	for _, pid := range r.wrapperPids() {
		if !mcptestutil.WaitProcessGone(pid, 30*time.Second) {
			r.t.Fatalf("the memory server (pid %d) is still running 30s after latch died", pid)
		}
	}
}

func (r *crashRig) wrapperPids() []int {
	b, _ := os.ReadFile(r.pidLog)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// writesSent counts the tools/call requests for Ada that reached the memory
// server.
func (r *crashRig) writesSent() int {
	r.t.Helper()
	b, err := os.ReadFile(r.callLog)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		r.t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Method == "tools/call" &&
			msg.Params.Name == "create_entities" && strings.Contains(string(msg.Params.Arguments), `"Ada"`) {
			n++
		}
	}
	return n
}

// adaInMemory counts the entities named Ada in the memory file.
func (r *crashRig) adaInMemory() int {
	r.t.Helper()
	b, err := os.ReadFile(r.memFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		r.t.Fatal(err)
	}
	return strings.Count(string(b), `"name":"Ada"`)
}

// checkWrites checks both witnesses: sent writes and entities on disk.
func (r *crashRig) checkWrites(when string, sent, stored int) {
	r.t.Helper()
	if got := r.writesSent(); got != sent {
		r.t.Errorf("%s: the write was sent %d times, want %d", when, got, sent)
	}
	if got := r.adaInMemory(); got != stored {
		r.t.Errorf("%s: the memory file holds Ada %d times, want %d", when, got, stored)
	}
}

// logEvent is a session log line, with the fields these tests look at.
type logEvent struct {
	Type       string `json:"type"`
	CallID     string `json:"call_id"`
	ApprovalID string `json:"approval_id"`
	Decision   string `json:"decision"`
	By         string `json:"by"`
	Reason     string `json:"reason"`
	OK         bool   `json:"ok"`
	Error      string `json:"error"`
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
}

// events reads session id's log.
func (r *crashRig) events(id string) []logEvent {
	r.t.Helper()
	f, err := os.Open(filepath.Join(r.stateDir, id+".jsonl"))
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	var evs []logEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e logEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			r.t.Fatalf("session log line %q: %v", sc.Text(), err)
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		r.t.Fatal(err)
	}
	return evs
}

// count counts the log events for call_Ada that match.
func count(evs []logEvent, match func(logEvent) bool) int {
	n := 0
	for _, e := range evs {
		if (e.CallID == "call_Ada" || e.ToolCallID == "call_Ada") && match(e) {
			n++
		}
	}
	return n
}

func isType(typ string) func(logEvent) bool {
	return func(e logEvent) bool { return e.Type == typ }
}

func isPermission(decision string) func(logEvent) bool {
	return func(e logEvent) bool { return e.Type == "permission" && e.Decision == decision }
}

func isToolMessage(e logEvent) bool { return e.Type == "message" && e.Role == "tool" }

// pending returns the PENDING column of `latch sessions` for session id.
func (r *crashRig) pending(id string) string {
	r.t.Helper()
	res := r.run("", nil, "sessions")
	if res.code != exitOK {
		r.t.Fatalf("latch sessions: exit %d", res.code)
	}
	for _, line := range strings.Split(res.stdout, "\n") {
		// ID  DATE TIME  MODEL  PENDING  FIRST PROMPT
		if f := strings.Fields(line); len(f) >= 5 && f[0] == id {
			return f[4]
		}
	}
	r.t.Fatalf("latch sessions does not list %s:\n%s", id, res.stdout)
	return ""
}

var resumeHint = regexp.MustCompile(`latch --resume (\S+) --approve (\S+) -p ""`)

// parkAda runs `latch -p "remember Ada"` in approve mode: the model's write
// parks, latch exits 3 with approval a1, and the log holds the parked call,
// unanswered. It returns the session id.
func (r *crashRig) parkAda() string {
	r.t.Helper()
	args := api.NewToolCallFunctionArguments()
	args.Set("entities", []any{map[string]any{"name": "Ada", "entityType": "person",
		"observations": []any{"wrote the first program"}}})
	r.fake.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_Ada",
			Function: api.ToolCallFunction{Name: "mem__create_entities", Arguments: args}}}}}},
		ollamatest.TextTurn("Saved Ada."),
	)
	res := r.run("", nil, "-p", "remember Ada")
	if res.code != exitParked || strings.TrimSpace(res.stdout) != "a1" {
		r.t.Fatalf("remember Ada in approve mode: exit %d, stdout %q; want 3 and the approval id a1", res.code, res.stdout)
	}
	m := resumeHint.FindStringSubmatch(res.stderr)
	if m == nil || m[2] != "a1" {
		r.t.Fatalf("stderr does not say how to approve a1:\n%s", res.stderr)
	}
	id := m[1]
	r.waitServersGone()
	evs := r.events(id)
	if count(evs, isType("approval_parked")) != 1 || count(evs, isType("tool_result")) != 0 || count(evs, isToolMessage) != 0 {
		r.t.Fatalf("after parking, the log should hold the parked call and no answer to it: %+v", evs)
	}
	if p := r.pending(id); p != "a1" {
		r.t.Fatalf("latch sessions: pending %q, want a1", p)
	}
	r.checkWrites("parked", 0, 0)
	return id
}

// finishes checks a run that ends the turn: exit 0 and the model's answer.
func finishes(t *testing.T, res crashRun) {
	t.Helper()
	if res.code != exitOK || strings.TrimSpace(res.stdout) != "Saved Ada." {
		t.Fatalf("resume: exit %d, stdout %q; want 0 and the model's answer", res.code, res.stdout)
	}
}

// lastRequestHasResult checks that the model's last request carries the
// result of call_Ada.
func lastRequestHasResult(t *testing.T, fake *ollamatest.Server, want int) {
	t.Helper()
	reqs := fake.Requests()
	if len(reqs) != want {
		t.Fatalf("%d chat requests, want %d", len(reqs), want)
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" && m.ToolCallID == "call_Ada" {
			if !strings.Contains(m.Content, "Ada") || strings.Contains(m.Content, `"error"`) {
				t.Errorf("the tool result the model got is not the write's: %q", m.Content)
			}
			return
		}
	}
	t.Errorf("the model's last request lacks the result of call_Ada: %+v", reqs[len(reqs)-1].Messages)
}

// TestCrashBeforeDecision: the user approved, but latch died before the
// decision reached the disk. Nothing ran; the approval is still pending, and
// approving it again runs the write once.
func TestCrashBeforeDecision(t *testing.T) {
	t.Parallel()
	r := newCrashRig(t)
	id := r.parkAda()

	r.crashed("before-decision", nil, "--resume", id, "--approve", "a1", "-p", "")
	evs := r.events(id)
	if n := count(evs, isType("approval_resolved")); n != 0 {
		t.Fatalf("the decision reached the log before the crash point (%d approval_resolved)", n)
	}
	r.checkWrites("after the crash", 0, 0)
	if p := r.pending(id); p != "a1" {
		t.Fatalf("latch sessions: pending %q after the crash, want a1 (the decision was not on disk)", p)
	}

	// Resuming without deciding says what the turn waits for.
	res := r.run("", nil, "--resume", id, "-p", "")
	if res.code != exitParked || strings.TrimSpace(res.stdout) != "a1" || !strings.Contains(res.stderr, "--approve a1") {
		t.Fatalf("resume without a decision: exit %d, stdout %q; want 3, a1, and how to approve it", res.code, res.stdout)
	}
	r.checkWrites("resumed without a decision", 0, 0)

	finishes(t, r.run("", nil, "--resume", id, "--approve", "a1", "-p", ""))
	r.checkWrites("approved after the crash", 1, 1)
	lastRequestHasResult(t, r.fake, 2)
	evs = r.events(id)
	if n := count(evs, isType("approval_resolved")); n != 1 {
		t.Errorf("%d approval_resolved events, want 1", n)
	}
	if p := r.pending(id); p != "-" {
		t.Errorf("latch sessions: pending %q after approving, want -", p)
	}
}

// TestCrashAfterDecision: the approval is on disk, the call had not started.
// The decision stands: it cannot be made again, it is not asked again, and
// resuming with -p "" runs the write once and finishes the turn.
func TestCrashAfterDecision(t *testing.T) {
	t.Parallel()
	r := newCrashRig(t)
	id := r.parkAda()

	r.crashed("after-decision", nil, "--resume", id, "--approve", "a1", "-p", "")
	evs := r.events(id)
	if count(evs, isType("approval_resolved")) != 1 || count(evs, isPermission("allowed")) != 0 {
		t.Fatalf("after the crash the log should hold the decision and no start of the call: %+v", evs)
	}
	r.checkWrites("after the crash", 0, 0)
	if p := r.pending(id); p != "-" {
		t.Fatalf("latch sessions: pending %q after the decision reached the disk, want -", p)
	}

	// A decision applies once: approving again is refused, and runs nothing.
	res := r.run("", nil, "--resume", id, "--approve", "a1", "-p", "")
	if res.code != exitError || !strings.Contains(res.stderr, "already resolved") {
		t.Fatalf("approving a1 again: exit %d; want 1 and \"already resolved\"", res.code)
	}
	r.checkWrites("after approving again", 0, 0)

	res = r.run("", nil, "--resume", id, "-p", "")
	finishes(t, res)
	if strings.Contains(res.stderr, "waits for approval") {
		t.Errorf("the decision made before the crash was asked again:\n%s", res.stderr)
	}
	r.checkWrites("resumed", 1, 1)
	lastRequestHasResult(t, r.fake, 2)
	evs = r.events(id)
	if n := count(evs, func(e logEvent) bool {
		return e.Type == "permission" && e.Decision == "allowed" && e.By == "user" && strings.Contains(e.Reason, "before the restart")
	}); n != 1 {
		t.Errorf("%d permission events allowing call_Ada on the decision made before the restart, want 1", n)
	}
	if n := count(evs, isType("approval_resolved")); n != 1 {
		t.Errorf("%d approval_resolved events, want 1", n)
	}

	// The turn is over: nothing is left to finish.
	if res := r.run("", nil, "--resume", id, "-p", ""); res.code != exitUsage {
		t.Errorf("resuming a finished session with -p \"\": exit %d, want 2", res.code)
	}
	r.checkWrites("at the end", 1, 1)
}

// TestCrashDuringCall: the write was sent and done, but latch died before
// the reply came back. The call is in doubt: resuming says so, names it and
// the way to settle it, and does not run it again on its own.
func TestCrashDuringCall(t *testing.T) {
	t.Parallel()
	r := newCrashRig(t)
	id := r.parkAda()

	// The server holds its reply for 5s: the crash, 150ms into the call,
	// comes after the write and before latch hears of it.
	r.crashed("during-call", []string{"LATCH_TEST_HOLD_RESULT=5"}, "--resume", id, "--approve", "a1", "-p", "")
	evs := r.events(id)
	if count(evs, isPermission("allowed")) != 1 || count(evs, isType("tool_result")) != 0 {
		t.Fatalf("after the crash the log should hold the start of the call and no result: %+v", evs)
	}
	r.checkWrites("after the crash", 1, 1)

	for _, args := range [][]string{{"--resume", id, "-p", ""}, {"--resume", id, "-p", "did it work?"}} {
		res := r.run("", nil, args...)
		if res.code != exitParked {
			t.Errorf("resume %q with a call in doubt: exit %d, want 3 (it waits for a person)", args, res.code)
		}
		for _, want := range []string{"call_Ada", "outcome is unknown", "/retry call_Ada", "/dismiss call_Ada", "latch --resume " + id} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("resume %q: stderr lacks %q:\n%s", args, want, res.stderr)
			}
		}
		r.checkWrites("resumed", 1, 1)
	}
	// Nor does approving again run it.
	if res := r.run("", nil, "--resume", id, "--approve", "a1", "-p", ""); res.code != exitError {
		t.Errorf("approving a1 again: exit %d, want 1", res.code)
	}
	r.checkWrites("after approving again", 1, 1)
	if n := len(r.fake.Requests()); n != 1 {
		t.Errorf("%d chat requests, want 1: the model is not asked while the call is in doubt", n)
	}
	evs = r.events(id)
	if count(evs, isType("tool_result")) != 0 || count(evs, isToolMessage) != 0 || count(evs, isPermission("allowed")) != 1 {
		t.Errorf("the resumes wrote an outcome for, or started again, the call in doubt: %+v", evs)
	}
	if p := r.pending(id); p != "-" {
		t.Errorf("latch sessions: pending %q, want - (the decision stands)", p)
	}
}

// TestCrashAfterResult: the result is on disk, the model had not seen it.
// Resuming gives the model the logged result without running the call
// again, and the turn finishes.
func TestCrashAfterResult(t *testing.T) {
	t.Parallel()
	r := newCrashRig(t)
	id := r.parkAda()

	r.crashed("after-result", nil, "--resume", id, "--approve", "a1", "-p", "")
	evs := r.events(id)
	if count(evs, func(e logEvent) bool { return e.Type == "tool_result" && e.OK }) != 1 || count(evs, isToolMessage) != 0 {
		t.Fatalf("after the crash the log should hold the result and not the model's copy: %+v", evs)
	}
	r.checkWrites("after the crash", 1, 1)
	if n := len(r.fake.Requests()); n != 1 {
		t.Fatalf("%d chat requests before the resume, want 1", n)
	}

	res := r.run("", nil, "--resume", id, "-p", "")
	finishes(t, res)
	if strings.Contains(res.stderr, "tool mem__create_entities") {
		t.Errorf("the resume ran the call again:\n%s", res.stderr)
	}
	r.checkWrites("resumed", 1, 1)
	lastRequestHasResult(t, r.fake, 2)
	evs = r.events(id)
	if count(evs, isType("tool_result")) != 1 || count(evs, isPermission("allowed")) != 1 {
		t.Errorf("the resume started the call again: %+v", evs)
	}
	if p := r.pending(id); p != "-" {
		t.Errorf("latch sessions: pending %q, want -", p)
	}
}
