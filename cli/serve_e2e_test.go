package cli

// End-to-end tests of latch serve with a client no one here wrote: the
// official MCP TypeScript SDK's (testdata/npm/sdkclient/client.mjs),
// against the built binary serving the npm server-memory ("mem").

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// sdkOut is what client.mjs prints.
type sdkOut struct {
	Instructions string           `json:"instructions"`
	Tools        []map[string]any `json:"tools"`
	Calls        []struct {
		Result *struct {
			Content           []map[string]any `json:"content"`
			StructuredContent any              `json:"structuredContent"`
			IsError           bool             `json:"isError"`
		} `json:"result"`
		Error string `json:"error"`
	} `json:"calls"`
	ConnectError string           `json:"connectError"`
	ListChanged  bool             `json:"listChanged"`
	ToolsAfter   []map[string]any `json:"toolsAfter"`
	DurationsMs  []float64        `json:"durationsMs"`
	RepeatError  any              `json:"repeatError"`
	// Stderr is the client's stderr: latch serve's, over stdio.
	Stderr string `json:"-"`
}

// sdkClient runs client.mjs with plan (see its header) in the rig's
// environment, and parses what it prints.
func sdkClient(t *testing.T, r *promptRig, plan map[string]any) sdkOut {
	t.Helper()
	var res sdkOut
	res.Stderr = startNodeClient(t, r, "@modelcontextprotocol/sdk", "sdkclient/client.mjs", plan).finish(t, &res)
	return res
}

// serveStdio is the plan's part that makes the SDK client start latch
// serve --stdio with the rig's config.
func (r *promptRig) serveStdio(extra ...string) map[string]any {
	args := append([]string{"--config", r.cfg}, extra...)
	return map[string]any{"command": r.bin, "args": append(args, "serve", "--stdio")}
}

// createAlice is a server-memory call that writes one entity.
var createAlice = map[string]any{"name": "mem__create_entities", "arguments": map[string]any{
	"entities": []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}}}}

func TestServeListsToolsAsUpstream(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, true)
	via := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "list": true})
	if via.ConnectError != "" {
		t.Fatalf("connect: %s", via.ConnectError)
	}
	direct := sdkClient(t, r, map[string]any{"stdio": map[string]any{
		"command": mcptestutil.NPMBin(t, "mcp-server-memory"),
		"env":     map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "m.jsonl")}}, "list": true})
	// Besides server-memory's tools: latch_await_decision, for parked calls.
	if len(direct.Tools) == 0 || len(via.Tools) != len(direct.Tools)+1 {
		t.Fatalf("served %d tools, server-memory has %d", len(via.Tools), len(direct.Tools))
	}
	served := map[string]map[string]any{}
	for _, tool := range via.Tools {
		served[tool["name"].(string)] = tool
	}
	if _, ok := served["latch_await_decision"]; !ok {
		t.Errorf("latch_await_decision is not served (served: %v)", keys(served))
	}
	for _, up := range direct.Tools {
		name := "mem__" + up["name"].(string)
		got, ok := served[name]
		if !ok {
			t.Errorf("%s is not served (served: %v)", name, keys(served))
			continue
		}
		for _, field := range []string{"description", "inputSchema", "outputSchema", "annotations", "title"} {
			if !reflect.DeepEqual(got[field], up[field]) {
				t.Errorf("%s's %s:\n served   %v\n upstream %v", name, field, got[field], up[field])
			}
		}
	}
	if ann, _ := served["mem__read_graph"]["annotations"].(map[string]any); ann["readOnlyHint"] != true {
		t.Errorf("mem__read_graph's annotations lost its readOnlyHint: %v", ann)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestServeAllowedCallReturnsUpstreamResult(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"allow": []string{"mem__create_entities"}}}, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "calls": []any{createAlice}})
	if res.ConnectError != "" || len(res.Calls) != 1 || res.Calls[0].Result == nil {
		t.Fatalf("call: %+v", res)
	}
	got := res.Calls[0].Result
	if got.IsError || len(got.Content) != 1 || !strings.Contains(got.Content[0]["text"].(string), `"alice"`) {
		t.Errorf("result is not server-memory's: %+v", got)
	}
	want := map[string]any{"entities": []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}}}
	if !reflect.DeepEqual(got.StructuredContent, want) {
		t.Errorf("structured content %v, want %v", got.StructuredContent, want)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
	b, err := os.ReadFile(r.memFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"alice"`); n != 1 {
		t.Errorf("the memory file holds alice %d times, want 1:\n%s", n, b)
	}
	// The gateway's run is a session log recording the client's call.
	logs, _ := filepath.Glob(filepath.Join(r.state, "*.jsonl"))
	found := false
	for _, p := range logs {
		b, _ := os.ReadFile(p)
		found = found || bytes.Contains(b, []byte(`"client":"sdk-e2e"`))
	}
	if !found {
		t.Errorf("no session log records the call with its client's name")
	}
}

// A call of an unlisted tool in read_only is refused, naming the mode; the
// first refusal says how to have such calls wait for a person instead
// (--mode ask or approve, serve.park_unlisted), the second does not repeat it.
func TestServeReadOnlyUnlistedIsDenied(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "calls": []any{createAlice, createAlice}})
	if len(res.Calls) != 2 || res.Calls[0].Result == nil || res.Calls[1].Result == nil {
		t.Fatalf("call: %+v", res)
	}
	got := res.Calls[0].Result
	text, _ := got.Content[0]["text"].(string)
	if !got.IsError || !strings.Contains(text, "denied") || !strings.Contains(text, "read_only") ||
		!strings.Contains(text, "mem__create_entities") {
		t.Errorf("want an error result naming read_only; got %+v", got)
	}
	for _, want := range []string{"--mode ask", "--mode approve", "park_unlisted"} {
		if !strings.Contains(text, want) {
			t.Errorf("the first refusal does not say %q: %s", want, text)
		}
	}
	if again, _ := res.Calls[1].Result.Content[0]["text"].(string); !res.Calls[1].Result.IsError || strings.Contains(again, "park_unlisted") {
		t.Errorf("the second refusal repeats the hint, or is no refusal: %s", again)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a denied call reached server-memory %d times", n)
	}
}

func TestServeUnexposedToolIsUnknown(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{
		"permissions": map[string]any{"allow": []string{"mem__create_entities"}},
		"serve":       map[string]any{"expose": []string{"mem__read_graph"}}}, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "list": true,
		"calls": []any{createAlice, map[string]any{"name": "mem__no_such_tool"}}})
	if len(res.Tools) != 2 || !slices.ContainsFunc(res.Tools, func(m map[string]any) bool { return m["name"] == "mem__read_graph" }) ||
		!slices.ContainsFunc(res.Tools, func(m map[string]any) bool { return m["name"] == "latch_await_decision" }) {
		t.Errorf("listed %v, want only mem__read_graph (and latch's latch_await_decision)", res.Tools)
	}
	if len(res.Calls) != 2 {
		t.Fatalf("calls: %+v", res.Calls)
	}
	unexposed, missing := res.Calls[0].Error, res.Calls[1].Error
	if !strings.Contains(unexposed, "mem__create_entities") || !strings.Contains(unexposed, "not found") {
		t.Errorf("the unexposed tool's call: %q, want it named as not found", unexposed)
	}
	if strings.ReplaceAll(unexposed, "create_entities", "X") != strings.ReplaceAll(missing, "no_such_tool", "X") {
		t.Errorf("an unexposed tool is told apart from a missing one:\n %q\n %q", unexposed, missing)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("an unexposed tool's call reached server-memory %d times", n)
	}
}

// served is a running latch serve --listen.
type served struct {
	url    string        // where it says it listens
	cmd    *exec.Cmd     // the process
	exited chan struct{} // closed once it has exited
	stderr io.Closer     // its stderr, read until it closes
}

// interrupt sends Ctrl+C (SIGINT) to latch serve and waits for it to
// exit; the test fails if it has not within mcptestutil.HangBound's
// bound (a minute at least).
func (s *served) interrupt(t *testing.T) {
	t.Helper()
	if !s.stopWith(t, os.Interrupt, 30*time.Second) {
		t.Fatalf("latch serve did not stop in time after Ctrl+C (its goroutines are above)")
	}
}

// kill kills latch serve (kill -9) and waits for it to be gone.
func (s *served) kill(t *testing.T) {
	t.Helper()
	if !s.stopWith(t, os.Kill, 30*time.Second) {
		t.Fatalf("latch serve was still there a minute after kill -9")
	}
}

// stopWith sends sig and waits up to d for latch serve to exit. It
// reports whether it did. One that did not is sent SIGQUIT, which makes
// the Go runtime print every goroutine's stack on its stderr (logged by
// the test) and exit, then kill -9; a test never hangs on it, and the
// hang is there to read.
func (s *served) stopWith(t *testing.T, sig os.Signal, d time.Duration) bool {
	t.Helper()
	d = mcptestutil.HangBound(d)
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.exited:
		return true
	case <-time.After(d):
	}
	t.Logf("latch serve (pid %d) has not exited %v after %v: sending SIGQUIT for its goroutines", s.cmd.Process.Pid, d, sig)
	_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-s.exited:
		return false
	case <-time.After(10 * time.Second):
	}
	_ = s.cmd.Process.Kill()
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		// Killed, but its stderr is still open: a process it started
		// outlived it, or it is stuck in the kernel. Stop reading
		// rather than hang.
		t.Logf("latch serve's stderr is still open 10 s after it was killed")
		_ = s.stderr.Close()
		<-s.exited
	}
	return false
}

// startServeHTTP starts latch serve --listen 127.0.0.1:0 (and extra
// flags) with the token in $LATCH_SERVE_TOKEN; it is interrupted when the
// test ends.
func startServeHTTP(t *testing.T, r *promptRig, token string, extra ...string) *served {
	t.Helper()
	return startServeHTTPEnv(t, r, nil, token, extra...)
}

// startServeHTTPEnv is startServeHTTP with env added to the rig's (a
// crash point's variable, say).
func startServeHTTPEnv(t *testing.T, r *promptRig, env []string, token string, extra ...string) *served {
	t.Helper()
	cmd := exec.Command(r.bin, append([]string{"--config", r.cfg, "serve", "--listen", "127.0.0.1:0"}, extra...)...)
	cmd.Env, cmd.Dir = append(append(append([]string{}, r.env...), env...), "LATCH_SERVE_TOKEN="+token), r.cwd
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		s := &served{cmd: cmd, exited: exited, stderr: stderr}
		select {
		case <-exited:
		default:
			if !s.stopWith(t, os.Interrupt, 30*time.Second) {
				t.Errorf("latch serve did not stop in time after Ctrl+C (its goroutines are above)")
			}
		}
	})
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		_ = cmd.Wait()
		close(lines)
		close(exited)
	}()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("latch serve exited before listening")
			}
			t.Logf("latch serve: %s", line)
			if u, found := strings.CutPrefix(line, "latch serve: listening on "); found {
				go func() {
					for l := range lines {
						t.Logf("latch serve: %s", l)
					}
				}()
				return &served{url: u, cmd: cmd, exited: exited, stderr: stderr}
			}
		case <-deadline:
			t.Fatal("latch serve did not say where it listens within 60 s")
		}
	}
}

// post sends an initialize request with the given headers and returns the
// status.
func post(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if bytes.Contains(b, []byte("s3cret")) {
		t.Errorf("the response echoes the token: %s", b)
	}
	return resp.StatusCode
}

func TestServeHTTPNeedsTokenHostAndOrigin(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"allow": []string{"mem__create_entities"}}}, true)
	url := startServeHTTP(t, r, token).url
	bearer := "Bearer " + token
	for _, c := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"token without Bearer", map[string]string{"Authorization": token}, http.StatusUnauthorized},
		{"wrong Origin", map[string]string{"Authorization": bearer, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"wrong Host", map[string]string{"Authorization": bearer, "Host": "evil.example"}, http.StatusForbidden},
		{"right token", map[string]string{"Authorization": bearer}, http.StatusOK},
	} {
		if got := post(t, url, c.header); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	bad := sdkClient(t, r, map[string]any{"http": map[string]any{"url": url, "token": "nope"}, "list": true})
	if bad.ConnectError == "" || len(bad.Tools) != 0 {
		t.Errorf("the SDK client with a wrong token connected: %+v", bad)
	}
	good := sdkClient(t, r, map[string]any{"http": map[string]any{"url": url, "token": token}, "list": true,
		"calls": []any{createAlice}})
	if good.ConnectError != "" || len(good.Tools) == 0 {
		t.Fatalf("the SDK client with the token: %+v", good)
	}
	if len(good.Calls) != 1 || good.Calls[0].Result == nil || good.Calls[0].Result.IsError {
		t.Fatalf("call over HTTP: %+v", good.Calls)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want 1", n)
	}
}

func TestServeListenRefusesWithoutTokenOrTLS(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, false)
	res := r.run("", "serve", "--listen", "127.0.0.1:0")
	if res.code != exitUsage || !strings.Contains(res.stderr, "bearer token") {
		t.Errorf("without a token: exit %d, stderr %q; want %d and why", res.code, res.stderr, exitUsage)
	}
	r.env = append(r.env, "LATCH_SERVE_TOKEN=s3cret")
	res = r.run("", "serve", "--listen", "0.0.0.0:0")
	if res.code != exitUsage || !strings.Contains(res.stderr, "allow_remote") {
		t.Errorf("a non-loopback bind: exit %d, stderr %q; want %d and why", res.code, res.stderr, exitUsage)
	}
	if strings.Contains(res.stderr, "s3cret") {
		t.Errorf("the token is echoed: %q", res.stderr)
	}
}

func TestServeFollowsUpstreamToolsAndNamesFailedServers(t *testing.T) {
	t.Parallel()
	fake := mcptestutil.BuildFakeMCP(t)
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"fake":   map[string]any{"command": fake, "args": []string{"-grow"}, "allow": []string{"grow"}},
		"broken": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")},
	}}, false)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "list": true,
		"calls": []any{map[string]any{"name": "fake__grow"}}, "waitListChanged": 30000})
	if !strings.Contains(res.Instructions, "broken") {
		t.Errorf("the instructions do not name the server that failed: %q", res.Instructions)
	}
	has := func(tools []map[string]any, name string) bool {
		for _, tool := range tools {
			if tool["name"] == name {
				return true
			}
		}
		return false
	}
	if !has(res.Tools, "fake__echo") || has(res.Tools, "fake__late") {
		t.Fatalf("first list: %v", res.Tools)
	}
	if !res.ListChanged {
		t.Errorf("no notifications/tools/list_changed after the upstream server added a tool")
	}
	if !has(res.ToolsAfter, "fake__late") {
		t.Errorf("the tool the upstream server added is not served: %v", res.ToolsAfter)
	}
}

func TestServeSigtermStopsUpstreamServers(t *testing.T) {
	t.Parallel()
	fake := mcptestutil.BuildFakeMCP(t)
	pidfile := filepath.Join(t.TempDir(), "pid")
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"fake": map[string]any{"command": fake, "args": []string{"-pidfile", pidfile}}}}, false)
	srv := startServeHTTP(t, r, "s3cret")
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the upstream server did not start: %v", err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.exited:
	case <-time.After(mcptestutil.HangBound(30 * time.Second)):
		t.Fatalf("latch serve did not exit within %s of SIGTERM", mcptestutil.HangBound(30*time.Second))
	}
	if code := srv.cmd.ProcessState.ExitCode(); code != exitOK {
		t.Errorf("exit status %d after SIGTERM, want %d", code, exitOK)
	}
	if !mcptestutil.WaitProcessGone(pid, 10*time.Second) {
		t.Errorf("the upstream server (pid %d) still runs after latch serve exited", pid)
	}
}

// secretRig is a rig whose stdio fake's env tool echoes secret, a
// credential latch knows (the token of a server nothing listens for).
func secretRig(t *testing.T, secret string) *promptRig {
	t.Helper()
	fake := mcptestutil.BuildFakeMCP(t)
	return newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"fake": map[string]any{"command": fake, "args": []string{"-echo-env", "LATCH_TEST_SECRET"},
			"env_inherit": []string{"LATCH_TEST_SECRET"}, "allow": []string{"env"}},
		// Its token is what the manager redacts; nothing listens there.
		"remote": map[string]any{"url": "http://127.0.0.1:1/mcp", "token_env": "LATCH_TEST_SECRET"},
	}}, false, "LATCH_TEST_SECRET="+secret)
}

func TestServeRedactsCredentials(t *testing.T) {
	t.Parallel()
	const secret = "sekrit-value-8c1f2e"
	r := secretRig(t, secret)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "calls": []any{map[string]any{"name": "fake__env"}}})
	if len(res.Calls) != 1 || res.Calls[0].Result == nil || res.Calls[0].Result.IsError {
		t.Fatalf("call: %+v", res.Calls)
	}
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), secret) || strings.Contains(res.Stderr, secret) {
		t.Errorf("the credential reached the client or the log:\n%s\nstderr: %s", raw, res.Stderr)
	}
	if text, _ := res.Calls[0].Result.Content[0]["text"].(string); !strings.Contains(text, "[redacted]") {
		t.Errorf("the tool's result does not show the credential redacted: %q", text)
	}
	if !strings.Contains(res.Instructions, "remote") {
		t.Errorf("the instructions do not name the server that failed: %q", res.Instructions)
	}
}
