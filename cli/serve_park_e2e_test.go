package cli

// End-to-end tests of parked calls through latch serve, with the official
// TypeScript SDK client: a call that needs a person returns a handle the
// SDK accepts, latch_await_decision collects what became of it.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// handle is the awaiting result of a parked call.
type handle struct {
	Status       string `json:"status"`
	InvocationID string `json:"invocation_id"`
	ExpiresAt    string `json:"expires_at"`
	AwaitWith    struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
	} `json:"await_with"`
}

// callHandle reads call i of res as an awaiting result: as structured
// content, and the same as its JSON text.
func callHandle(t *testing.T, res sdkOut, i int) handle {
	t.Helper()
	if len(res.Calls) <= i || res.Calls[i].Result == nil {
		t.Fatalf("call %d: %+v", i, res)
	}
	got := res.Calls[i].Result
	var h, fromText handle
	b, _ := json.Marshal(got.StructuredContent)
	if err := json.Unmarshal(b, &h); err != nil || got.IsError || len(got.Content) != 1 {
		t.Fatalf("call %d is not an awaiting result: %+v", i, got)
	}
	text, _ := got.Content[0]["text"].(string)
	if err := json.Unmarshal([]byte(text), &fromText); err != nil || fromText.InvocationID != h.InvocationID {
		t.Errorf("the text is not the structured content as JSON: %q", text)
	}
	if h.Status != "awaiting_approval" || !strings.HasPrefix(h.InvocationID, "gw_") || h.ExpiresAt == "" ||
		h.AwaitWith.Tool != "latch_await_decision" || h.AwaitWith.Arguments["invocation_id"] != h.InvocationID {
		t.Errorf("awaiting result: %+v", h)
	}
	return h
}

// callText is the text of call i's result, and whether it is an error.
func callText(t *testing.T, res sdkOut, i int) (string, bool) {
	t.Helper()
	if len(res.Calls) <= i || res.Calls[i].Result == nil || len(res.Calls[i].Result.Content) == 0 {
		t.Fatalf("call %d: %+v", i, res)
	}
	text, _ := res.Calls[i].Result.Content[0]["text"].(string)
	return text, res.Calls[i].Result.IsError
}

// In ask mode, with no one at a prompt, a call parks: the SDK client gets
// the awaiting result (valid for it: the tool's output schema is not
// served), a poll says it still waits, and nothing ran.
func TestServeAskModeParks(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"serve": map[string]any{"await_poll": "100ms"}}, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio("--mode", "ask"), "list": true,
		"calls": []any{createAlice, map[string]any{"awaitCall": 0}}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	h := callHandle(t, res, 0)
	if again := callHandle(t, res, 1); again.InvocationID != h.InvocationID {
		t.Errorf("the poll names another call: %+v", again)
	}
	var create, await map[string]any
	for _, tool := range res.Tools {
		switch tool["name"] {
		case "mem__create_entities":
			create = tool
		case "latch_await_decision":
			await = tool
		}
	}
	if create == nil || create["outputSchema"] != nil || !strings.Contains(create["description"].(string), "latch_await_decision") {
		t.Errorf("a tool that parks is served with its output schema, or without saying so: %v", create)
	}
	if await == nil {
		t.Errorf("latch_await_decision is not listed")
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a call no one approved reached server-memory %d times", n)
	}
}

// A parked call no one decides expires after serve.approval_ttl: the poll
// says so, and it never runs.
func TestServeParkedCallExpires(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"},
		"serve": map[string]any{"approval_ttl": "1s"}}, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(),
		"calls": []any{createAlice, map[string]any{"awaitCall": 0}}})
	callHandle(t, res, 0)
	text, isErr := callText(t, res, 1)
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil || isErr || got["status"] != "expired" {
		t.Errorf("the poll after the ttl: %q (error %v)", text, isErr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("an expired call reached server-memory %d times", n)
	}
	if b, _ := os.ReadFile(r.memFile); strings.Contains(string(b), "alice") {
		t.Errorf("the memory file holds alice: %s", b)
	}
}

// latch_await_decision with an id no call has is an error result.
func TestServeAwaitUnknownID(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(),
		"calls": []any{map[string]any{"name": "latch_await_decision", "arguments": map[string]any{"invocation_id": "gw_nope"}}}})
	if text, isErr := callText(t, res, 0); !isErr || !strings.Contains(text, "gw_nope") || !strings.Contains(text, "latch approvals") {
		t.Errorf("unknown id: %q (error %v)", text, isErr)
	}
}

// parkOverHTTP starts latch serve --listen in ask mode and has a client
// ("claude-e2e") call create_entities: it parks. It returns the rig, the
// plan's http part for later clients, and the call's handle.
func parkOverHTTP(t *testing.T) (*promptRig, map[string]any, handle) {
	t.Helper()
	return parkCallOverHTTP(t, createAlice)
}

// parkCallOverHTTP is parkOverHTTP with a call of its own.
func parkCallOverHTTP(t *testing.T, call map[string]any) (*promptRig, map[string]any, handle) {
	t.Helper()
	const token = "park-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	res := sdkClient(t, r, map[string]any{"http": httpPlan, "clientName": "claude-e2e", "calls": []any{call}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	return r, httpPlan, callHandle(t, res, 0)
}

// awaitPlan polls the call twice, from a new client.
func awaitPlan(httpPlan map[string]any, id string) map[string]any {
	poll := map[string]any{"name": "latch_await_decision", "arguments": map[string]any{"invocation_id": id}}
	return map[string]any{"http": httpPlan, "clientName": "claude-e2e", "calls": []any{poll, poll}}
}

// A parked call is listed by latch approvals in another process, approved
// by a person with latch approve in another terminal: the client's poll gets server-memory's
// real result, the write happens exactly once, and a later poll gets the
// same result without running anything again.
func TestServeParkedCallApprovedFromAnotherTerminal(t *testing.T) {
	t.Parallel()
	r, httpPlan, h := parkOverHTTP(t)
	list := r.run("", "approvals")
	if list.code != 0 || !strings.Contains(list.stdout, h.InvocationID) || !strings.Contains(list.stdout, "claude-e2e") ||
		!strings.Contains(list.stdout, "mem__create_entities") || !strings.Contains(list.stdout, "alice") {
		t.Fatalf("latch approvals (exit %d):\n%s%s", list.code, list.stdout, list.stderr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Fatalf("the call ran before anyone approved it (%d times)", n)
	}
	ok := decideAsPerson(t, r, "approve", h.InvocationID)
	if ok.code != 0 || !ok.asked || !strings.Contains(ok.screen, "approved "+h.InvocationID) {
		t.Fatalf("latch approve (exit %d): %s", ok.code, ok.screen)
	}
	res := sdkClient(t, r, awaitPlan(httpPlan, h.InvocationID))
	want := map[string]any{"entities": []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}}}
	for i := range 2 {
		text, isErr := callText(t, res, i)
		if isErr || !strings.Contains(text, `"alice"`) || !reflect.DeepEqual(res.Calls[i].Result.StructuredContent, want) {
			t.Errorf("poll %d after the approval: %q %v", i, text, res.Calls[i].Result.StructuredContent)
		}
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
	if b, _ := os.ReadFile(r.memFile); strings.Count(string(b), `"alice"`) != 1 {
		t.Errorf("the memory file does not hold alice exactly once:\n%s", b)
	}
	again := decideAsPerson(t, r, "reject", h.InvocationID)
	if again.code == 0 || again.asked || !strings.Contains(again.screen, "already approved by") {
		t.Errorf("a second decision (exit %d): %s", again.code, again.screen)
	}
	if list := r.run("", "approvals"); strings.Contains(list.stdout, h.InvocationID) {
		t.Errorf("latch approvals still lists the decided call:\n%s", list.stdout)
	}
	// The gateway logged who decided.
	logs, _ := filepath.Glob(filepath.Join(r.state, "*.jsonl"))
	found := false
	for _, p := range logs {
		b, _ := os.ReadFile(p)
		found = found || (bytes.Contains(b, []byte(`"type":"approval_resolved"`)) && bytes.Contains(b, []byte(`"decision":"approved","by":"`)))
	}
	if !found {
		t.Errorf("no session log records the approval and who gave it")
	}
}

// A call rejected from another terminal never runs; its poll is an error
// result {"denied": …} with the reason given.
func TestServeParkedCallRejectedFromAnotherTerminal(t *testing.T) {
	t.Parallel()
	r, httpPlan, h := parkOverHTTP(t)
	no := decideAsPerson(t, r, "reject", h.InvocationID, "--reason", "not today")
	if no.code != 0 || !strings.Contains(no.screen, "reason not today") || !strings.Contains(no.screen, "rejected "+h.InvocationID) {
		t.Fatalf("latch reject (exit %d): %s", no.code, no.screen)
	}
	res := sdkClient(t, r, awaitPlan(httpPlan, h.InvocationID))
	text, isErr := callText(t, res, 0)
	var got map[string]string
	if err := json.Unmarshal([]byte(text), &got); err != nil || !isErr || !strings.Contains(got["denied"], "not today") {
		t.Errorf("poll after the rejection: %q (error %v)", text, isErr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a rejected call reached server-memory %d times", n)
	}
	if unknown := decideAsPerson(t, r, "approve", "gw_000000000000"); unknown.code == 0 || !strings.Contains(unknown.screen, "no gateway's call has this id") {
		t.Errorf("approving an unknown id (exit %d): %s", unknown.code, unknown.screen)
	}
}

// createEntity is a server-memory call that writes one entity.
func createEntity(name string) map[string]any {
	return map[string]any{"name": "mem__create_entities", "arguments": map[string]any{
		"entities": []any{map[string]any{"name": name, "entityType": "person", "observations": []any{"x"}}}}}
}

// pollOnce polls a parked call from a new client and returns the
// result's text and whether it is an error.
func pollOnce(t *testing.T, r *promptRig, httpPlan map[string]any, id string) (string, bool) {
	t.Helper()
	res := sdkClient(t, r, map[string]any{"http": httpPlan, "calls": []any{
		map[string]any{"name": "latch_await_decision", "arguments": map[string]any{"invocation_id": id}}}})
	return callText(t, res, 0)
}

// Killed with calls parked (one approved and run, one approved just
// before the kill, two undecided), latch serve started again on the same
// config takes them up: the same invocation ids resolve, a call approved
// after the restart runs once, one rejected never runs, and nothing runs
// twice. --fresh starts a session that knows none of them.
func TestServeRestartTakesUpParkedCalls(t *testing.T) {
	t.Parallel()
	const token = "restart-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	res := sdkClient(t, r, map[string]any{"http": httpPlan, "calls": []any{
		createEntity("ann"), createEntity("ben"), createEntity("cat"), createEntity("dan")}})
	ann, ben, cat, dan := callHandle(t, res, 0), callHandle(t, res, 1), callHandle(t, res, 2), callHandle(t, res, 3)
	if ok := decideAsPerson(t, r, "approve", ann.InvocationID); ok.code != 0 {
		t.Fatalf("approve: %s", ok.screen)
	}
	if text, isErr := pollOnce(t, r, httpPlan, ann.InvocationID); isErr || !strings.Contains(text, `"ann"`) {
		t.Fatalf("ann's poll before the kill: %q", text)
	}
	if ok := decideAsPerson(t, r, "approve", ben.InvocationID); ok.code != 0 {
		t.Fatalf("approve: %s", ok.screen)
	}
	srv.kill(t)

	srv = startServeHTTP(t, r, token)
	httpPlan = map[string]any{"url": srv.url, "token": token}
	if text, isErr := pollOnce(t, r, httpPlan, ann.InvocationID); isErr || !strings.Contains(text, `"ann"`) {
		t.Errorf("ann's poll after the restart: %q (error %v), want its result", text, isErr)
	}
	// ben was approved just before the kill: it ran, or runs now, or (killed
	// while it ran) is in doubt; it never runs twice.
	benText, benErr := pollOnce(t, r, httpPlan, ben.InvocationID)
	for strings.Contains(benText, "awaiting_approval") {
		benText, benErr = pollOnce(t, r, httpPlan, ben.InvocationID)
	}
	if !(strings.Contains(benText, `"ben"`) && !benErr) && !(strings.Contains(benText, "in_doubt") && benErr) {
		t.Errorf("ben's poll after the restart: %q (error %v)", benText, benErr)
	}
	if text, _ := pollOnce(t, r, httpPlan, cat.InvocationID); !strings.Contains(text, "awaiting_approval") {
		t.Errorf("cat's poll after the restart: %q, want it still waiting", text)
	}
	list := r.run("", "approvals")
	if !strings.Contains(list.stdout, cat.InvocationID) || !strings.Contains(list.stdout, dan.InvocationID) ||
		strings.Contains(list.stdout, ann.InvocationID) {
		t.Errorf("latch approvals after the restart:\n%s", list.stdout)
	}
	if ok := decideAsPerson(t, r, "approve", cat.InvocationID); ok.code != 0 {
		t.Fatalf("approve after the restart: %s", ok.screen)
	}
	if ok := decideAsPerson(t, r, "reject", dan.InvocationID); ok.code != 0 {
		t.Fatalf("reject after the restart: %s", ok.screen)
	}
	if text, isErr := pollOnce(t, r, httpPlan, cat.InvocationID); isErr || !strings.Contains(text, `"cat"`) {
		t.Errorf("cat's poll once approved: %q (error %v)", text, isErr)
	}
	if text, isErr := pollOnce(t, r, httpPlan, dan.InvocationID); !isErr || !strings.Contains(text, "denied") {
		t.Errorf("dan's poll once rejected: %q (error %v)", text, isErr)
	}
	b, _ := os.ReadFile(r.memFile)
	for name, want := range map[string]int{"ann": 1, "cat": 1, "dan": 0} {
		if n := strings.Count(string(b), `"`+name+`"`); n != want {
			t.Errorf("the memory file holds %s %d times, want %d:\n%s", name, n, want, b)
		}
	}
	if n := strings.Count(string(b), `"ben"`); n > 1 || (n == 0 && !strings.Contains(benText, "in_doubt")) {
		t.Errorf("the memory file holds ben %d times, and its poll said %q", n, benText)
	}

	srv.interrupt(t)
	srv = startServeHTTP(t, r, token, "--fresh")
	if text, isErr := pollOnce(t, r, map[string]any{"url": srv.url, "token": token}, ann.InvocationID); !isErr ||
		!strings.Contains(text, "no parked call") {
		t.Errorf("ann's poll on a --fresh gateway: %q (error %v)", text, isErr)
	}
}
