package cli

// End-to-end tests of latch serve --listen with the official MCP
// TypeScript SDK's v2 client (npm @modelcontextprotocol/client,
// testdata/npm/v2client/client.mjs), pinned to the 2026-07-28 stateless
// form: no initialize, no session, the version on every request.

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
)

// v2Out is what v2client/client.mjs prints.
type v2Out struct {
	sdkOut
	ProtocolVersion string `json:"protocolVersion"`
	Era             string `json:"era"`
	// Wire is every HTTP request the client sent, and the status answered.
	Wire []wireRequest `json:"wire"`
}

// wireRequest is one HTTP request of the v2 client: its JSON-RPC methods,
// its MCP-Protocol-Version and Mcp-Session-Id headers, the status answered.
type wireRequest struct {
	HTTPMethod      string   `json:"httpMethod"`
	Methods         []string `json:"methods"`
	ProtocolVersion string   `json:"protocolVersion"`
	SessionID       string   `json:"sessionId"`
	Status          int      `json:"status"`
}

// v2Client runs v2client/client.mjs with plan (see its header) in the
// rig's environment, and parses what it prints.
func v2Client(t *testing.T, r *promptRig, plan map[string]any) v2Out {
	t.Helper()
	var res v2Out
	startNodeClient(t, r, "@modelcontextprotocol/client", "v2client/client.mjs", plan).finish(t, &res)
	return res
}

// assertStateless fails unless the client spoke the 2026-07-28 stateless
// form: it negotiated that version, sent it on every request, never sent
// initialize, and was given no session.
func assertStateless(t *testing.T, res v2Out) {
	t.Helper()
	if res.ConnectError != "" {
		t.Fatalf("the v2 client did not connect: %s", res.ConnectError)
	}
	if res.ProtocolVersion != "2026-07-28" || res.Era != "modern" {
		t.Errorf("negotiated %q (era %q), want 2026-07-28 (modern)", res.ProtocolVersion, res.Era)
	}
	if len(res.Wire) == 0 || !slices.Contains(res.Wire[0].Methods, "server/discover") {
		t.Errorf("the first request is not server/discover: %+v", res.Wire)
	}
	for _, w := range res.Wire {
		if slices.Contains(w.Methods, "initialize") || slices.Contains(w.Methods, "notifications/initialized") {
			t.Errorf("the client sent an initialize handshake: %+v", w)
		}
		if w.ProtocolVersion != "2026-07-28" || w.SessionID != "" {
			t.Errorf("a request with version %q, session %q; want 2026-07-28 and none", w.ProtocolVersion, w.SessionID)
		}
	}
}

// decideFromTerminal approves or rejects a parked call as a person at
// another terminal does. (Every v2 test decides through here, so that how
// a person is shown to be there is changed in one place.)
func decideFromTerminal(t *testing.T, r *promptRig, id string, approve bool) {
	t.Helper()
	verb := "reject"
	if approve {
		verb = "approve"
	}
	res := decideAsPerson(t, r, verb, id)
	if res.code != 0 || !strings.Contains(res.screen, verb[:len(verb)-1]) {
		t.Fatalf("latch %s %s (exit %d): %s", verb, id, res.code, res.screen)
	}
}

// v2Handle reads call i of res as an awaiting result (as callHandle does
// for the v1 client).
func v2Handle(t *testing.T, res v2Out, i int) handle {
	t.Helper()
	return callHandle(t, res.sdkOut, i)
}

// The v2 client at 2026-07-28: tools are listed with their schemas as
// server-memory wrote them, an allowed call returns server-memory's
// result, and the write happens once.
func TestServeV2ClientStatelessListsAndCalls(t *testing.T) {
	t.Parallel()
	const token = "v2-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"allow": []string{"mem__create_entities"}}}, true)
	srv := startServeHTTP(t, r, token)
	res := v2Client(t, r, map[string]any{"url": srv.url, "token": token, "list": true,
		"calls": []any{createAlice, map[string]any{"name": "mem__read_graph"}}})
	assertStateless(t, res)
	served := map[string]map[string]any{}
	for _, tool := range res.Tools {
		served[tool["name"].(string)] = tool
	}
	if served["latch_await_decision"] == nil {
		t.Errorf("latch_await_decision is not listed (listed: %v)", keys(served))
	}
	// Each tool's schemas as server-memory wrote them ("$schema" too).
	direct := sdkClient(t, r, map[string]any{"stdio": map[string]any{
		"command": mcptestutil.NPMBin(t, "mcp-server-memory"),
		"env":     map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "m.jsonl")}}, "list": true})
	if len(direct.Tools) == 0 {
		t.Fatalf("server-memory listed no tools: %+v", direct)
	}
	for _, up := range direct.Tools {
		name := "mem__" + up["name"].(string)
		got := served[name]
		if got == nil {
			t.Errorf("%s is not listed (listed: %v)", name, keys(served))
			continue
		}
		for _, field := range []string{"inputSchema", "outputSchema"} {
			if !reflect.DeepEqual(got[field], up[field]) {
				t.Errorf("%s's %s:\n served   %v\n upstream %v", name, field, got[field], up[field])
			}
		}
	}
	if len(res.Calls) != 2 {
		t.Fatalf("calls: %+v", res.Calls)
	}
	want := map[string]any{"entities": []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}}}
	if got := res.Calls[0].Result; got == nil || got.IsError || !reflect.DeepEqual(got.StructuredContent, want) {
		t.Errorf("create_entities: %+v, want server-memory's result %v", res.Calls[0], want)
	}
	if text, isErr := callText(t, res.sdkOut, 1); isErr || !strings.Contains(text, `"alice"`) {
		t.Errorf("read_graph after the write: %q (error %v)", text, isErr)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
}

// The v2 client's call that needs a person gets the awaiting result (the
// SDK validates results against output schemas: no error), a person
// approves it at another terminal, and the poll returns server-memory's
// real result; the write happened once.
func TestServeV2ClientParkedCallApproved(t *testing.T) {
	t.Parallel()
	const token = "v2-park-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	plan := map[string]any{"url": srv.url, "token": token, "clientName": "v2-agent"}
	parked := v2Client(t, r, with(plan, "calls", []any{createAlice, map[string]any{"awaitCall": 0}}))
	assertStateless(t, parked)
	if len(parked.Calls) > 0 && parked.Calls[0].Error != "" {
		t.Fatalf("the SDK refused the awaiting result: %s", parked.Calls[0].Error)
	}
	h := v2Handle(t, parked, 0)
	if again := v2Handle(t, parked, 1); again.InvocationID != h.InvocationID {
		t.Errorf("the poll before a decision names another call: %+v", again)
	}
	if list := r.run("", "approvals"); !strings.Contains(list.stdout, h.InvocationID) || !strings.Contains(list.stdout, "v2-agent") {
		t.Errorf("latch approvals does not list the call with its client:\n%s%s", list.stdout, list.stderr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Fatalf("the call ran before anyone approved it (%d times)", n)
	}
	decideFromTerminal(t, r, h.InvocationID, true)
	poll := map[string]any{"name": "latch_await_decision", "arguments": map[string]any{"invocation_id": h.InvocationID}}
	res := v2Client(t, r, with(plan, "calls", []any{poll, poll}))
	assertStateless(t, res)
	want := map[string]any{"entities": []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}}}
	for i := range 2 {
		text, isErr := callText(t, res.sdkOut, i)
		if isErr || !reflect.DeepEqual(res.Calls[i].Result.StructuredContent, want) {
			t.Errorf("poll %d after the approval: %q %v", i, text, res.Calls[i].Result.StructuredContent)
		}
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
	if b, _ := os.ReadFile(r.memFile); strings.Count(string(b), `"alice"`) != 1 {
		t.Errorf("the memory file does not hold alice exactly once:\n%s", b)
	}
}

// A parked call the person rejects: the v2 client's poll gets an error
// result saying so, and the call never runs.
func TestServeV2ClientParkedCallRejected(t *testing.T) {
	t.Parallel()
	const token = "v2-reject-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	plan := map[string]any{"url": srv.url, "token": token}
	h := v2Handle(t, v2Client(t, r, with(plan, "calls", []any{createAlice})), 0)
	decideFromTerminal(t, r, h.InvocationID, false)
	res := v2Client(t, r, with(plan, "calls", []any{map[string]any{
		"name": "latch_await_decision", "arguments": map[string]any{"invocation_id": h.InvocationID}}}))
	if text, isErr := callText(t, res.sdkOut, 0); !isErr || !strings.Contains(text, "denied") {
		t.Errorf("the poll after a rejection: %q (error %v), want an error result naming the denial", text, isErr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a rejected call reached server-memory %d times", n)
	}
}

// Without the token the v2 client is refused (401), and with a foreign
// Origin (a browser page elsewhere: DNS rebinding) too (403).
func TestServeV2ClientNeedsTokenAndOrigin(t *testing.T) {
	t.Parallel()
	const token = "v2-guard-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"allow": []string{"mem__create_entities"}}}, true)
	srv := startServeHTTP(t, r, token)
	for _, c := range []struct {
		name string
		plan map[string]any
		want int
	}{
		{"no token", map[string]any{"url": srv.url}, 401},
		{"wrong token", map[string]any{"url": srv.url, "token": "nope"}, 401},
		{"wrong Origin", map[string]any{"url": srv.url, "token": token, "origin": "http://evil.example"}, 403},
	} {
		res := v2Client(t, r, with(c.plan, "calls", []any{createAlice}))
		if res.ConnectError == "" || len(res.Calls) != 0 {
			t.Errorf("%s: the v2 client connected: %+v", c.name, res)
		}
		if len(res.Wire) == 0 || res.Wire[0].Status != c.want {
			t.Errorf("%s: answered %+v, want status %d", c.name, res.Wire, c.want)
		}
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a refused client's call reached server-memory %d times", n)
	}
}

// with is plan with key set to v (a copy).
func with(plan map[string]any, key string, v any) map[string]any {
	out := map[string]any{key: v}
	for k, x := range plan {
		if k != key {
			out[k] = x
		}
	}
	return out
}

// When an upstream server's tools change, the v2 client at 2026-07-28 is
// told (notifications/tools/list_changed on its subscriptions/listen
// stream) and lists the new tool.
func TestServeV2ClientFollowsUpstreamTools(t *testing.T) {
	t.Parallel()
	const token = "v2-follow-token-for-the-test"
	fake := mcptestutil.BuildFakeMCP(t)
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"fake": map[string]any{"command": fake, "args": []string{"-grow"}, "allow": []string{"grow"}}}}, false)
	srv := startServeHTTP(t, r, token)
	res := v2Client(t, r, map[string]any{"url": srv.url, "token": token, "list": true,
		"calls": []any{map[string]any{"name": "fake__grow"}}, "waitListChanged": 30000})
	assertStateless(t, res)
	has := func(tools []map[string]any, name string) bool {
		return slices.ContainsFunc(tools, func(m map[string]any) bool { return m["name"] == name })
	}
	if !has(res.Tools, "fake__echo") || has(res.Tools, "fake__late") {
		t.Fatalf("first list: %v", res.Tools)
	}
	if !slices.ContainsFunc(res.Wire, func(w wireRequest) bool {
		return slices.Contains(w.Methods, "subscriptions/listen") && w.Status == 200
	}) {
		t.Errorf("the client opened no subscriptions/listen stream: %+v", res.Wire)
	}
	if !res.ListChanged {
		t.Errorf("no notifications/tools/list_changed after the upstream server added a tool")
	}
	if !has(res.ToolsAfter, "fake__late") {
		t.Errorf("the tool the upstream server added is not served: %v", res.ToolsAfter)
	}
}
