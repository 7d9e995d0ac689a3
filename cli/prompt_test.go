package cli

// Tests of the non-interactive mode (-p, --json, --continue, --resume with
// --approve/--reject, latch sessions): the BUILT binary (see latchBinary),
// run with exec against the fake Ollama of latch/session/ollamatest and the
// real npm server-memory, whose memory file, and a copy of every request
// latch sent it, witness which writes ran and how many times.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// promptRig is one user's machine: the latch binary, a fake Ollama with a
// model that can call tools, a clean environment (HOME, XDG_* in a temp
// folder), and a config file.
type promptRig struct {
	t     *testing.T
	bin   string
	fake  *ollamatest.Server
	env   []string
	root  string // holds home, config, state, cache, data and cwd
	cwd   string
	state string // the sessions folder
	cfg   string
	// With server-memory ("mem"): its file, and a copy of every line latch
	// sent to it.
	memFile, memIn string
}

// newPromptRig writes cfg as the config file. With mem set, it adds the
// npm server-memory as server "mem" (allow-listing read_graph).
func newPromptRig(t *testing.T, cfg map[string]any, mem bool, extraEnv ...string) *promptRig {
	t.Helper()
	r := &promptRig{t: t, bin: latchBinary(t, mcptestutil.RaceEnabled)}
	r.fake = ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion", "tools"}})
	t.Cleanup(r.fake.Close)
	r.env = cleanEnv(t, r.fake.Host(), extraEnv)
	for _, kv := range r.env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			r.root = filepath.Dir(v)
			r.state = filepath.Join(v, "latch", "sessions")
		}
	}
	r.cwd = filepath.Join(r.root, "cwd")
	if cfg == nil {
		cfg = map[string]any{}
	}
	if mem {
		bin := mcptestutil.NPMBin(t, "mcp-server-memory")
		files := t.TempDir()
		r.memFile, r.memIn = filepath.Join(files, "memory.jsonl"), filepath.Join(files, "to-mem.jsonl")
		servers, _ := cfg["mcpServers"].(map[string]any)
		if servers == nil {
			servers = map[string]any{}
		}
		// tee keeps a copy of what latch sends: every tools/call.
		servers["mem"] = map[string]any{
			"command": "/bin/sh",
			"args":    []string{"-c", `tee -a "$LATCH_PROMPT_MEM_IN" | exec "$LATCH_PROMPT_MEM_BIN"`},
			"env":     map[string]string{"MEMORY_FILE_PATH": r.memFile, "LATCH_PROMPT_MEM_IN": r.memIn, "LATCH_PROMPT_MEM_BIN": bin},
			"allow":   []string{"read_graph"},
		}
		cfg["mcpServers"] = servers
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	r.cfg = filepath.Join(t.TempDir(), "latch.json")
	if err := os.WriteFile(r.cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// promptRun is how one run of latch ended.
type promptRun struct {
	stdout, stderr string
	code           int
}

// run runs latch --config CFG ARGS with stdin, and waits (bounded) for it.
func (r *promptRig) run(stdin string, args ...string) promptRun {
	r.t.Helper()
	args = append([]string{"--config", r.cfg}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = r.env, r.cwd, strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := promptRun{stdout: out.String(), stderr: errb.String(), code: -1}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.t.Fatalf("latch %q did not exit within 2 minutes; stderr:\n%s", args, res.stderr)
	case err == nil:
		res.code = 0
	case errors.As(err, &ee) && ee.Exited():
		res.code = ee.ExitCode()
	default:
		r.t.Fatalf("latch %q: %v; stderr:\n%s", args, err, res.stderr)
	}
	r.t.Logf("latch %q → exit %d\nstdout: %q\nstderr: %q", args, res.code, res.stdout, res.stderr)
	return res
}

// sessionIDs lists the saved sessions' ids (file names).
func (r *promptRig) sessionIDs() []string {
	r.t.Helper()
	paths, err := filepath.Glob(filepath.Join(r.state, "*.jsonl"))
	if err != nil {
		r.t.Fatal(err)
	}
	var ids []string
	for _, p := range paths {
		ids = append(ids, strings.TrimSuffix(filepath.Base(p), ".jsonl"))
	}
	return ids
}

// onlySession returns the id of the one saved session.
func (r *promptRig) onlySession() string {
	r.t.Helper()
	ids := r.sessionIDs()
	if len(ids) != 1 {
		r.t.Fatalf("%d saved sessions (%v), want 1", len(ids), ids)
	}
	return ids[0]
}

// logEvents reads a session's log as JSON objects.
func (r *promptRig) logEvents(id string) []map[string]any {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.state, id+".jsonl"))
	if err != nil {
		r.t.Fatal(err)
	}
	return jsonLines(r.t, string(data))
}

// memNames counts the entities of each name in the memory file.
func (r *promptRig) memNames() map[string]int {
	r.t.Helper()
	data, err := os.ReadFile(r.memFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int{}
	}
	if err != nil {
		r.t.Fatal(err)
	}
	n := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		var e struct{ Type, Name string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == "entity" {
			n[e.Name]++
		}
	}
	return n
}

// memCalls counts the tools/call requests latch sent to server-memory for
// tool.
func (r *promptRig) memCalls(tool string) int {
	r.t.Helper()
	f, err := os.Open(r.memIn)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Method string
			Params struct{ Name string }
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method == "tools/call" && m.Params.Name == tool {
			n++
		}
	}
	return n
}

// jsonLines parses NDJSON, failing the test on any line that is not a JSON
// object.
func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d is not a JSON object: %v: %q", i+1, err, line)
		}
		out = append(out, m)
	}
	return out
}

// memCall is a reply of the model calling one server-memory tool.
func memCall(id, tool string, args map[string]any) ollamatest.Turn {
	a := api.NewToolCallFunctionArguments()
	for k, v := range args {
		a.Set(k, v)
	}
	return ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: id,
		Function: api.ToolCallFunction{Name: "mem__" + tool, Arguments: a}}}}}}
}

// remember is a reply of the model that writes an entity.
func remember(name string) ollamatest.Turn {
	return memCall("call_"+strings.ToLower(name), "create_entities", map[string]any{"entities": []any{
		map[string]any{"name": name, "entityType": "person", "observations": []any{"wrote the first program"}}}})
}

// toolMessage returns the tool message answering callID in req.
func toolMessage(t *testing.T, req api.ChatRequest, callID string) api.Message {
	t.Helper()
	var found []api.Message
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d tool messages for %s in the request, want 1: %+v", len(found), callID, req.Messages)
	}
	return found[0]
}

// toolError decodes a tool message of the form {"error": "..."}.
func toolError(t *testing.T, m api.Message) string {
	t.Helper()
	var e map[string]string
	if err := json.Unmarshal([]byte(m.Content), &e); err != nil || len(e) != 1 || e["error"] == "" {
		t.Fatalf("tool message %q is not {\"error\": ...}", m.Content)
	}
	return e["error"]
}

// lastRequest is the last chat request the fake received.
func (r *promptRig) lastRequest() api.ChatRequest {
	r.t.Helper()
	reqs := r.fake.Requests()
	if len(reqs) == 0 {
		r.t.Fatal("the fake received no chat request")
	}
	return reqs[len(reqs)-1]
}

// stderrLines returns the non-empty lines of stderr that start with prefix.
func stderrLines(s, prefix string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func TestPromptPlainAnswer(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, false)
	r.fake.Script(ollamatest.TextTurn("The answer is 42, as **everyone** knows."))
	res := r.run("", "--model", e2eModel, "-p", "hi")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0", res.code)
	}
	if res.stdout != "The answer is 42, as **everyone** knows.\n" {
		t.Errorf("stdout %q, want the answer and a newline", res.stdout)
	}
	if res.stderr != "" {
		t.Errorf("stderr %q, want nothing", res.stderr)
	}
	if !hasUserMessage(r.fake, "hi") {
		t.Errorf("the fake did not get the prompt: %+v", r.fake.Requests())
	}

	// The session is saved, private to the user.
	id := r.onlySession()
	for _, d := range []string{filepath.Dir(r.state), r.state} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o700 {
			t.Errorf("folder %s has mode %o, want 700", d, m)
		}
	}
	fi, err := os.Stat(filepath.Join(r.state, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("session file has mode %o, want 600", m)
	}
	var types []string
	for _, e := range r.logEvents(id) {
		types = append(types, fmt.Sprint(e["type"]))
	}
	for _, want := range []string{"session_started", "user_message", "assistant_message", "turn_done"} {
		if !slices.Contains(types, want) {
			t.Errorf("the log has no %s: %v", want, types)
		}
	}
	if slices.Contains(types, "assistant_delta") {
		t.Errorf("deltas in the log: %v", types)
	}
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func TestPromptJSONEvents(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	const answer = "Your memory graph is empty."
	r.fake.Script(memCall("call_read1", "read_graph", nil), ollamatest.TextTurn(answer))
	res := r.run("", "--model", e2eModel, "--json", "-p", "what do you remember?")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0", res.code)
	}
	if res.stderr != "" {
		t.Errorf("stderr %q, want nothing with --json", res.stderr)
	}
	evs := jsonLines(t, res.stdout)
	id := r.onlySession()
	index := func(typ string, match func(map[string]any) bool) int {
		for i, e := range evs {
			if e["type"] == typ && (match == nil || match(e)) {
				return i
			}
		}
		t.Fatalf("no %s event in %s", typ, res.stdout)
		return -1
	}
	var deltas strings.Builder
	for i, e := range evs {
		typ, _ := e["type"].(string)
		if typ == "" {
			t.Errorf("event %d has no type: %v", i, e)
		}
		ts, _ := e["time"].(string)
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			t.Errorf("event %d (%s): time %q is not RFC 3339: %v", i, typ, ts, err)
		}
		if e["session_id"] != id {
			t.Errorf("event %d (%s): session_id %v, want %s", i, typ, e["session_id"], id)
		}
		for k := range e {
			if !snakeCase.MatchString(k) {
				t.Errorf("event %d (%s): field %q is not snake_case", i, typ, k)
			}
		}
		switch typ {
		case "tool_call", "permission", "tool_result":
			if e["call_id"] != "call_read1" {
				t.Errorf("%s: call_id %v, want call_read1: %v", typ, e["call_id"], e)
			}
		case "assistant_delta":
			deltas.WriteString(fmt.Sprint(e["text"]))
		}
	}
	call := func(e map[string]any) bool { return e["call_id"] == "call_read1" }
	started := index("session_started", nil)
	connected := index("server_status", func(e map[string]any) bool { return e["server"] == "mem" && e["state"] == "connected" })
	user := index("user_message", func(e map[string]any) bool { return e["text"] == "what do you remember?" })
	tc := index("tool_call", call)
	perm := index("permission", call)
	result := index("tool_result", call)
	msg := index("assistant_message", func(e map[string]any) bool { return e["content"] == answer })
	done := index("turn_done", nil)
	if !(started == 0 && started < connected && connected < user && user < tc && tc < perm && perm < result && result < msg && msg < done && done == len(evs)-1) {
		t.Errorf("order: session_started %d, server connected %d, user_message %d, tool_call %d, permission %d, tool_result %d, assistant_message %d, turn_done %d of %d",
			started, connected, user, tc, perm, result, msg, done, len(evs))
	}
	if e := evs[tc]; e["server"] != "mem" || e["tool"] != "mem__read_graph" {
		t.Errorf("tool_call %v", e)
	}
	if e := evs[perm]; e["decision"] != "allowed" || e["by"] != "policy" || e["mode"] != "approve" {
		t.Errorf("permission %v", e)
	}
	if e := evs[result]; e["ok"] != true || e["duration_ms"] == nil {
		t.Errorf("tool_result %v", e)
	}
	if e := evs[done]; e["reason"] != "stop" {
		t.Errorf("turn_done %v", e)
	}
	if deltas.String() != answer {
		t.Errorf("the deltas make %q, want %q", deltas.String(), answer)
	}
	if n := r.memCalls("read_graph"); n != 1 {
		t.Errorf("read_graph ran %d times, want 1", n)
	}
}

func TestPromptToolLinesOnStderr(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, true) // read_only: only read_graph is allowed
	r.fake.Script(memCall("call_read1", "read_graph", nil), remember("Ada"), ollamatest.TextTurn("I could read, not write."))
	res := r.run("", "--model", e2eModel, "-p", "remember Ada")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0", res.code)
	}
	if res.stdout != "I could read, not write.\n" {
		t.Errorf("stdout %q, want only the answer", res.stdout)
	}
	lines := strings.Split(strings.TrimSuffix(res.stderr, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("stderr has %d lines, want one per tool call (2) and the read_only explanation:\n%s", len(lines), res.stderr)
	}
	// The first denial explains read_only mode, with -p's fix: the flag.
	if !strings.HasPrefix(lines[2], "latch: read_only mode: only allow-listed tools run") ||
		!strings.Contains(lines[2], "--allow mem__create_entities") || strings.Contains(lines[2], "/allow") {
		t.Errorf("the explanation: %q", lines[2])
	}
	if !strings.HasPrefix(lines[0], "tool mem__read_graph ") || strings.Contains(lines[0], "denied") {
		t.Errorf("line for read_graph: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "tool mem__create_entities ") || !strings.Contains(lines[1], "denied") ||
		!strings.Contains(lines[1], `"Ada"`) {
		t.Errorf("line for the denied create_entities: %q", lines[1])
	}
	if n := r.memNames()["Ada"]; n != 0 || r.memCalls("create_entities") != 0 {
		t.Errorf("a denied write reached server-memory")
	}
}

func TestPromptAskModeDeniesWithNoOneToAsk(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	r.fake.Script(remember("Ada"), ollamatest.TextTurn("I was not allowed to save Ada."))
	res := r.run("", "--model", e2eModel, "--mode", "ask", "-p", "remember Ada")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0", res.code)
	}
	if res.stdout != "I was not allowed to save Ada.\n" {
		t.Errorf("stdout %q", res.stdout)
	}
	msg := toolError(t, toolMessage(t, r.lastRequest(), "call_ada"))
	if !strings.Contains(msg, "no one to ask") || !strings.Contains(msg, "non-interactive") {
		t.Errorf("the model was told %q, want that no one can be asked (non-interactive)", msg)
	}
	if len(stderrLines(res.stderr, "tool mem__create_entities")) != 1 {
		t.Errorf("stderr should have one line for the denied call:\n%s", res.stderr)
	}
	if r.memNames()["Ada"] != 0 || r.memCalls("create_entities") != 0 {
		t.Errorf("the denied write reached server-memory")
	}
	if _, err := os.Stat(r.memFile); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the memory file exists after a denied write: %v", err)
	}
}

// parkAda runs the first, parked, run of the approve tests and returns the
// session id.
func parkAda(t *testing.T, r *promptRig, asJSON bool) string {
	t.Helper()
	r.fake.Script(remember("Ada"))
	args := []string{"--model", e2eModel, "-p", "remember Ada"}
	if asJSON {
		args = append(args, "--json")
	}
	res := r.run("", args...)
	if res.code != exitParked {
		t.Fatalf("exit %d, want %d (parked)", res.code, exitParked)
	}
	id := r.onlySession()
	if want := fmt.Sprintf("--resume %s --approve a1", id); !strings.Contains(res.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
	}
	if asJSON {
		evs := jsonLines(t, res.stdout)
		last := evs[len(evs)-1]
		if last["type"] != "approval_parked" || last["approval_id"] != "a1" || last["call_id"] != "call_ada" ||
			last["tool"] != "mem__create_entities" {
			t.Errorf("last event %v, want approval_parked a1", last)
		}
	} else if res.stdout != "a1\n" {
		t.Errorf("stdout %q, want the approval id", res.stdout)
	}
	if r.memNames()["Ada"] != 0 || r.memCalls("create_entities") != 0 {
		t.Fatal("the parked write reached server-memory")
	}
	return id
}

// sessionsRow returns the row of `latch sessions` for id.
func sessionsRow(t *testing.T, r *promptRig, id string) []string {
	t.Helper()
	res := r.run("", "sessions")
	if res.code != exitOK {
		t.Fatalf("latch sessions: exit %d", res.code)
	}
	for _, l := range strings.Split(res.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == id {
			return f
		}
	}
	t.Fatalf("latch sessions does not list %s:\n%s", id, res.stdout)
	return nil
}

func TestPromptApproveParksThenResumeApproves(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	id := parkAda(t, r, false)
	// ID STARTED(date time) MODEL PENDING FIRST PROMPT…
	if row := sessionsRow(t, r, id); len(row) < 5 || row[3] != e2eModel || row[4] != "a1" || !strings.Contains(strings.Join(row, " "), "remember Ada") {
		t.Errorf("latch sessions row %q, want the model, pending a1 and the prompt", row)
	}

	r.fake.Script(ollamatest.TextTurn("Saved Ada."))
	before := len(r.fake.Requests())
	res := r.run("", "--resume", id, "--approve", "a1", "-p", "")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0", res.code)
	}
	if res.stdout != "Saved Ada.\n" {
		t.Errorf("stdout %q", res.stdout)
	}
	if lines := stderrLines(res.stderr, "tool mem__create_entities"); len(lines) != 1 || strings.Contains(lines[0], "denied") {
		t.Errorf("stderr lines for the call: %q", lines)
	}
	if n := r.memNames()["Ada"]; n != 1 {
		t.Fatalf("Ada is %d times in the memory file, want 1", n)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Fatalf("create_entities was sent %d times, want exactly once", n)
	}
	reqs := r.fake.Requests()
	if len(reqs) != before+1 {
		t.Fatalf("%d requests after the approval, want 1", len(reqs)-before)
	}
	// The model gets the write's result: the entity it created (a second
	// run would have created nothing and answered []).
	if m := toolMessage(t, reqs[len(reqs)-1], "call_ada"); !strings.Contains(m.Content, `"Ada"`) || strings.Contains(m.Content, "error") {
		t.Errorf("tool message %q, want the created entity", m.Content)
	}
	if !hasUserMessage(r.fake, "remember Ada") {
		t.Error("the resumed request lacks the original prompt")
	}
	results := 0
	for _, e := range r.logEvents(id) {
		if e["type"] == "tool_result" && e["call_id"] == "call_ada" {
			results++
		}
	}
	if results != 1 {
		t.Errorf("%d tool_result events for call_ada in the log, want 1", results)
	}
	memInfo, err := os.Stat(r.memFile)
	if err != nil {
		t.Fatal(err)
	}

	// Approving again is refused, and nothing runs.
	res = r.run("", "--resume", id, "--approve", "a1", "-p", "")
	if res.code == exitOK || res.code == exitParked {
		t.Errorf("a second --approve a1: exit %d, want an error", res.code)
	}
	if !strings.Contains(res.stderr, "a1") || !strings.Contains(res.stderr, "already resolved") {
		t.Errorf("stderr %q, want a clear error about a1", res.stderr)
	}
	if n := r.memCalls("create_entities"); n != 1 || r.memNames()["Ada"] != 1 {
		t.Errorf("after a second --approve: %d calls, Ada %d times; want 1, 1", n, r.memNames()["Ada"])
	}
	if fi, err := os.Stat(r.memFile); err != nil || !os.SameFile(fi, memInfo) || !fi.ModTime().Equal(memInfo.ModTime()) {
		t.Errorf("the memory file was rewritten by a second --approve")
	}
	if n := len(r.fake.Requests()); n != len(reqs) {
		t.Errorf("a second --approve asked the model again")
	}
	if row := sessionsRow(t, r, id); len(row) < 5 || row[4] != "-" {
		t.Errorf("latch sessions row %q, want nothing pending", row)
	}
}

func TestPromptApproveParksThenResumeRejects(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	id := parkAda(t, r, true)

	r.fake.Script(ollamatest.TextTurn("OK, I did not save Ada."))
	res := r.run("", "--resume", id, "--reject", "a1", "-p", "")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0", res.code)
	}
	if res.stdout != "OK, I did not save Ada.\n" {
		t.Errorf("stdout %q", res.stdout)
	}
	msg := toolError(t, toolMessage(t, r.lastRequest(), "call_ada"))
	if !strings.Contains(msg, "user") || !strings.Contains(msg, "reject") {
		t.Errorf("the model was told %q, want that the user rejected the call", msg)
	}
	if r.memNames()["Ada"] != 0 || r.memCalls("create_entities") != 0 {
		t.Error("a rejected write reached server-memory")
	}
	res = r.run("", "--resume", id, "--approve", "a1", "-p", "")
	if res.code == exitOK || !strings.Contains(res.stderr, "already resolved") {
		t.Errorf("--approve after --reject: exit %d, stderr %q; want an error", res.code, res.stderr)
	}
	if r.memCalls("create_entities") != 0 {
		t.Error("--approve after --reject ran the write")
	}
}

func TestPromptFromStdin(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, false)
	r.fake.Script(ollamatest.TextTurn("Read it."))
	res := r.run("what does stdin say?\nline two\n", "--model", e2eModel, "-p", "-")
	if res.code != exitOK || res.stdout != "Read it.\n" {
		t.Fatalf("exit %d, stdout %q", res.code, res.stdout)
	}
	if !hasUserMessage(r.fake, "what does stdin say?\nline two") {
		t.Errorf("the fake did not get the prompt from stdin: %+v", r.fake.Requests())
	}
}

func TestPromptUsageErrors(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, false)
	for _, args := range [][]string{
		{"--model", e2eModel, "-p", ""},
		{"--model", e2eModel, "-p", "  "},
		{"--model", e2eModel, "--json"},
		{"--model", e2eModel, "--approve", "a1", "-p", ""},
		{"--model", e2eModel, "--reject", "a1", "-p", ""},
		{"--resume", "x", "--approve", "a1", "--reject", "a2", "-p", ""},
		{"--continue", "--resume", "x", "-p", "hi"},
		{"-p", "hi"}, // no model anywhere
		{"--model", e2eModel, "--mode", "yolo", "-p", "hi"},
		{"--model", e2eModel, "-p", "hi", "extra"},
	} {
		res := r.run("", args...)
		if res.code != exitUsage {
			t.Errorf("latch %q: exit %d, want %d", args, res.code, exitUsage)
		}
		if !strings.HasPrefix(res.stderr, "latch: ") || res.stdout != "" {
			t.Errorf("latch %q: stdout %q, stderr %q; want only an error on stderr", args, res.stdout, res.stderr)
		}
	}
	if n := len(r.fake.Requests()); n != 0 {
		t.Errorf("usage errors sent %d chat requests", n)
	}
}

func TestPromptOllamaUnreachableExits1(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, false)
	res := r.run("", "--model", e2eModel, "--host", closedPort(t), "-p", "hello?")
	if res.code != exitError {
		t.Fatalf("exit %d, want %d", res.code, exitError)
	}
	if !strings.Contains(res.stderr, "cannot reach Ollama") || res.stdout != "" {
		t.Errorf("stdout %q, stderr %q", res.stdout, res.stderr)
	}
}

func TestPromptContinueUsesTheLatestSession(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, false)
	r.fake.Script(ollamatest.TextTurn("Noted, the sky."), ollamatest.TextTurn("Noted, the sea."), ollamatest.TextTurn("You spoke of the sea."))
	if res := r.run("", "--model", e2eModel, "-p", "first: the sky"); res.code != exitOK {
		t.Fatalf("exit %d", res.code)
	}
	if res := r.run("", "--model", e2eModel, "-p", "second: the sea"); res.code != exitOK {
		t.Fatalf("exit %d", res.code)
	}
	ids := r.sessionIDs()
	if len(ids) != 2 {
		t.Fatalf("sessions %v, want 2", ids)
	}
	res := r.run("", "--continue", "-p", "again")
	if res.code != exitOK || res.stdout != "You spoke of the sea.\n" {
		t.Fatalf("exit %d, stdout %q", res.code, res.stdout)
	}
	var got []string
	for _, m := range r.lastRequest().Messages {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: second: the sea", "assistant: Noted, the sea.", "user: again"}
	if !slices.Equal(got, want) {
		t.Errorf("--continue sent %q, want %q", got, want)
	}
	if now := r.sessionIDs(); !slices.Equal(now, ids) {
		t.Errorf("sessions after --continue %v, want the same %v", now, ids)
	}
}

// tokenServer is a streamable-HTTP MCP server with tools that echo the
// caller's Authorization header back: in a result, and in an error.
type tokenServer struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

type tokenAuthKey struct{}

func newTokenServer(t *testing.T) *tokenServer {
	ts := &tokenServer{}
	s := mcpserver.NewMCPServer("crm", "1.0")
	s.AddTool(mcp.NewTool("whoami", mcp.WithReadOnlyHintAnnotation(true)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprintf("you sent %v", ctx.Value(tokenAuthKey{}))), nil
	})
	s.AddTool(mcp.NewTool("leaky"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("backend rejected header %v", ctx.Value(tokenAuthKey{}))
	})
	h := mcpserver.NewStreamableHTTPServer(s, mcpserver.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		return context.WithValue(ctx, tokenAuthKey{}, r.Header.Get("Authorization"))
	}))
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.auth = append(ts.auth, r.Header.Get("Authorization"))
		ts.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) sawAuth(want string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Contains(ts.auth, want)
}

func TestPromptTokenNeverLeaks(t *testing.T) {
	t.Parallel()
	sentinel := fmt.Sprintf("SENTINEL-%d-c0ffee", time.Now().UnixNano())
	srv := newTokenServer(t)
	r := newPromptRig(t, map[string]any{
		"permissions": map[string]any{"mode": "approve"},
		"mcpServers": map[string]any{"crm": map[string]any{
			"url": srv.URL + "/mcp", "token_env": "LATCH_PROMPT_TOKEN", "allow": []string{"whoami", "leaky"},
		}},
	}, false, "LATCH_PROMPT_TOKEN="+sentinel)
	calls := ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
		{ID: "call_who", Function: api.ToolCallFunction{Name: "crm__whoami", Arguments: api.NewToolCallFunctionArguments()}},
		{ID: "call_leak", Function: api.ToolCallFunction{Name: "crm__leaky", Arguments: api.NewToolCallFunctionArguments()}},
	}}}}
	r.fake.Script(calls, ollamatest.TextTurn("Done."), calls, ollamatest.TextTurn("Done again."))
	plain := r.run("", "--model", e2eModel, "-p", "who am I?")
	asJSON := r.run("", "--model", e2eModel, "--json", "-p", "who am I, in JSON?")
	if plain.code != exitOK || asJSON.code != exitOK {
		t.Fatalf("exit %d and %d, want 0", plain.code, asJSON.code)
	}
	if !srv.sawAuth("Bearer " + sentinel) {
		t.Fatal("the server never got the token: this test proves nothing")
	}
	who := toolMessage(t, r.lastRequest(), "call_who")
	if who.Content != "you sent Bearer [redacted]" {
		t.Errorf("the model got %q, want the echoed token redacted", who.Content)
	}

	check := func(what, s string) {
		t.Helper()
		if i := strings.Index(s, sentinel); i >= 0 {
			t.Errorf("the token leaked into %s: …%s…", what, s[max(0, i-120):min(len(s), i+len(sentinel)+40)])
		}
	}
	check("stdout", plain.stdout+asJSON.stdout)
	check("stderr", plain.stderr+asJSON.stderr)
	reqs, _ := json.Marshal(r.fake.Requests())
	check("the requests to the model", string(reqs))
	if !strings.Contains(asJSON.stdout, "[redacted]") {
		t.Errorf("--json output does not show the echoed token as [redacted]")
	}
	logged := false
	err := filepath.WalkDir(r.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		check(path, string(b))
		if strings.HasSuffix(path, ".jsonl") && bytes.Contains(b, []byte("[redacted]")) {
			logged = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.sessionIDs()); n != 2 {
		t.Errorf("%d sessions saved, want 2", n)
	}
	if !logged {
		t.Error("no session log shows the echoed token as [redacted]")
	}
}

// TestPromptStateFolderUnusable: with the sessions folder unusable (a
// file stands where it should be), -p still answers and exits 0, saying
// on stderr that nothing is saved; a tool call is refused (nothing it
// could not record runs, even in auto mode), and then the exit is 1.
func TestPromptStateFolderUnusable(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "auto"}}, true)
	if err := os.MkdirAll(filepath.Dir(r.state), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.state, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.fake.Script(ollamatest.TextTurn("Plain answer."))
	res := r.run("", "--model", e2eModel, "-p", "hello")
	if res.code != exitOK || strings.TrimSpace(res.stdout) != "Plain answer." ||
		!strings.Contains(res.stderr, "cannot open the session log") {
		t.Fatalf("plain answer without a log: exit %d, %q, %q", res.code, res.stdout, res.stderr)
	}
	r.fake.Script(remember("Ada"), ollamatest.TextTurn("Could not save Ada."))
	res = r.run("", "--model", e2eModel, "-p", "remember Ada")
	if res.code != exitError || !strings.Contains(res.stderr, session.NotRunLogBroken) {
		t.Fatalf("a tool call without a log: exit %d, %q", res.code, res.stderr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Fatalf("the write reached the server %d times without a log", n)
	}
}

// TestPromptResumeKeepsTheFlagMode runs exactly what latch prints after
// parking under --mode approve (the config says nothing of modes): the
// session's mode comes back from its log, and the approved write runs once.
func TestPromptResumeKeepsTheFlagMode(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, true)
	r.fake.Script(remember("Ada"))
	res := r.run("", "--model", e2eModel, "--mode", "approve", "-p", "remember Ada")
	m := resumeHint.FindStringSubmatch(res.stderr)
	if res.code != exitParked || m == nil {
		t.Fatalf("parking under --mode approve: exit %d, stderr %q", res.code, res.stderr)
	}
	r.fake.Script(ollamatest.TextTurn("Saved Ada."))
	res = r.run("", "--resume", m[1], "--approve", m[2], "-p", "")
	if res.code != exitOK || res.stdout != "Saved Ada.\n" || strings.Contains(res.stderr, "denied") {
		t.Fatalf("the printed resume command: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Fatalf("create_entities was sent %d times, want exactly once", n)
	}
}
