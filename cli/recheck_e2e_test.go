package cli

// End-to-end tests of point 8 of #30: a person's approval is acted on
// against the rules of the moment. A deny rule added to the config after
// a call parked refuses it when it is approved, naming the rule, in the
// gateway that runs it and on the screen that approves it.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// denyCreate is a deny rule on server-memory's create_entities.
var denyCreate = map[string]any{"tool": "mem__create_entities", "decision": "deny"}

// setConfigRules rewrites the config at path with rules as its
// permissions.rules, as a person editing it (or another latch's A step)
// would; nil takes them out.
func setConfigRules(t *testing.T, path string, rules ...map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	perm, _ := cfg["permissions"].(map[string]any)
	if perm == nil {
		perm = map[string]any{}
	}
	delete(perm, "rules")
	if len(rules) > 0 {
		perm["rules"] = rules
	}
	cfg["permissions"] = perm
	if b, err = json.MarshalIndent(cfg, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// ruleOrigin is how latch names the first rule of the config at path.
func ruleOrigin(path string) string { return "config " + path + ": permissions.rules[0]" }

// squashed says whether screen holds want, spaces aside: a terminal row
// may end in the middle of a long path.
func squashed(screen, want string) bool {
	return strings.Contains(strings.ReplaceAll(screen, " ", ""), strings.ReplaceAll(want, " ", ""))
}

// A call parked by latch serve, then a deny rule added to the config while
// the gateway runs: latch approvals and latch approve say, before the
// person decides, that a rule now denies it; approving it is refused,
// naming the rule, with exit 1; the client's poll gets the refusal naming
// the rule; server-memory never sees the call.
func TestServeApprovalRefusedByRuleAddedSince(t *testing.T) {
	t.Parallel()
	r, httpPlan, h := parkOverHTTP(t)
	setConfigRules(t, r.cfg, denyCreate)
	origin := ruleOrigin(r.cfg)

	list := r.run("", "approvals")
	if !strings.Contains(list.stdout, h.InvocationID) || !strings.Contains(list.stdout, "a rule now denies this call: "+origin) {
		t.Errorf("latch approvals does not say the rule now denies the call (exit %d):\n%s%s", list.code, list.stdout, list.stderr)
	}
	tm := r.startDecide("", "approve", h.InvocationID)
	res := answerDecide(t, tm, idTail(h.InvocationID))
	question := res.screen[:max(0, strings.Index(res.screen, decideQuestion))]
	if !res.asked || !squashed(question, "a rule now denies this call: "+origin) ||
		!strings.Contains(question, "approving will refuse it") {
		t.Errorf("the question does not say the rule denies the call before asking: %s", res.screen)
	}
	if i, j := strings.Index(question, "a rule now denies"), strings.Index(question, "arguments"); i < 0 || j < 0 || i > j {
		t.Errorf("the notice is not above the arguments: %s", question)
	}
	after := res.screen[len(question):]
	if res.code != exitError || !strings.Contains(after, "refused") || !squashed(after, origin) {
		t.Errorf("latch approve of a call a rule now denies: exit %d, want %d and the refusal naming %q: %s",
			res.code, exitError, origin, after)
	}
	text, isErr := pollOnce(t, r, httpPlan, h.InvocationID)
	if !isErr || !strings.Contains(text, "denied") || !strings.Contains(text, "permissions.rules[0]") {
		t.Errorf("the client's poll after the refused approval: %q (error %v), want a refusal naming the rule", text, isErr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a call a rule denied reached server-memory %d times", n)
	}
}

// A call parked by latch serve, the gateway stopped, a deny rule added,
// the gateway started again on the config: it takes the call up, and an
// approval is refused naming the rule. The refusal is final: with the
// rule taken out and the gateway restarted once more, the call is still
// refused and never runs.
func TestServeApprovalRefusedByRuleAfterRestart(t *testing.T) {
	t.Parallel()
	const token = "recheck-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	res := sdkClient(t, r, map[string]any{"http": map[string]any{"url": srv.url, "token": token},
		"calls": []any{createEntity("eve")}})
	h := callHandle(t, res, 0)
	srv.interrupt(t)

	setConfigRules(t, r.cfg, denyCreate)
	srv = startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	if text, _ := pollOnce(t, r, httpPlan, h.InvocationID); !strings.Contains(text, "awaiting_approval") {
		t.Fatalf("the poll after the restart: %q, want the call still waiting", text)
	}
	ok := decideAsPerson(t, r, "approve", h.InvocationID)
	if ok.code != exitError || !squashed(ok.screen, "a rule now denies this call: "+ruleOrigin(r.cfg)) {
		t.Errorf("latch approve after the restart with the rule: exit %d: %s", ok.code, ok.screen)
	}
	text, isErr := pollOnce(t, r, httpPlan, h.InvocationID)
	if !isErr || !strings.Contains(text, "permissions.rules[0]") {
		t.Errorf("the poll once approved after the restart: %q (error %v), want the refusal naming the rule", text, isErr)
	}

	srv.interrupt(t)
	setConfigRules(t, r.cfg)
	srv = startServeHTTP(t, r, token)
	text, isErr = pollOnce(t, r, map[string]any{"url": srv.url, "token": token}, h.InvocationID)
	if !isErr || !strings.Contains(text, "permissions.rules[0]") {
		t.Errorf("the poll after a restart without the rule: %q (error %v), want the refusal kept", text, isErr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a call a rule denied reached server-memory %d times", n)
	}
}

// A chat's call parked in approve mode (-p), then a deny rule added to the
// config: `latch --resume ID --approve a1` refuses it naming the rule, the
// model is told so, and server-memory never sees the call.
func TestResumeApproveRefusedByRuleAddedSince(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	id := parkAda(t, r, false)
	setConfigRules(t, r.cfg, denyCreate)

	r.fake.Script(ollamatest.TextTurn("Not saved."))
	res := r.run("", "--resume", id, "--approve", "a1", "-p", "")
	if !strings.Contains(res.stderr, "a rule now denies this call") || !strings.Contains(res.stderr, "permissions.rules[0]") {
		t.Errorf("--resume --approve of a call a rule now denies (exit %d): stderr %q, want the refusal naming the rule", res.code, res.stderr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a call a rule denied reached server-memory %d times", n)
	}
	var refused map[string]any
	for _, e := range r.logEvents(id) {
		if e["type"] == "permission" && e["call_id"] == "call_ada" && e["decision"] == "denied" {
			refused = e
		}
	}
	if refused == nil || refused["rule"] != ruleOrigin(r.cfg) {
		t.Errorf("the log's refusal of call_ada: %v, want one naming %s", refused, ruleOrigin(r.cfg))
	}
	if reqs := r.fake.Requests(); len(reqs) > 0 {
		if m := toolMessage(t, reqs[len(reqs)-1], "call_ada"); !strings.Contains(m.Content, "permissions.rules[0]") {
			t.Errorf("the model's tool message %q, want the refusal naming the rule", m.Content)
		}
	}
}

// latch --serve in ask mode: a client's call is asked in the chat's box;
// a deny rule is then added to the config (by hand, or by another latch's
// A step, which writes the same file): the box says, before the person
// decides, that a rule now denies the call, and y refuses it, naming the
// rule to the client. The next call, parked with Esc, is refused the same
// way by /approve.
func TestE2EChatServeApprovalRefusedByRuleAddedSince(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	addr := fmt.Sprintf("127.0.0.1:%d", mcptestutil.FreePort(t))
	config := chatServeConfig(t, "ask")
	r := startChatServe(t, fake.Host(), config, addr, t.TempDir())
	tm := r.tm

	res := r.call("fake__add", map[string]any{"a": 2, "b": 3})
	r.takeBox("the box naming the client")
	setConfigRules(t, config, map[string]any{"tool": "fake__add", "decision": "deny"})
	scr := tm.waitScreen(t, 20*time.Second, "the box saying a rule now denies the call", func(s string) bool {
		return strings.Contains(unwrapped(s), "rule a rule now denies this call") && strings.Contains(s, "permissions.rules[0]")
	})
	t.Logf("the box once the rule was added:\n%s", dumpScreen(scr))
	tm.typeKeys("y")
	if got := r.result(res); !strings.HasPrefix(got, "true ") || !strings.Contains(got, "a rule now denies this call") ||
		!strings.Contains(got, "permissions.rules[0]") {
		t.Errorf("after y the client got %q, want the refusal naming the rule; screen:\n%s", got, dumpScreen(tm.screen()))
	}

	res = r.call("fake__add", map[string]any{"a": 20, "b": 22})
	tm.waitScreen(t, 10*time.Second, "the second call's box with the notice", func(s string) bool {
		return strings.Count(s, `"a": 20`) >= 2 && strings.Contains(unwrapped(s), "rule a rule now denies this call")
	})
	r.takeBox("the box of the second call")
	tm.sendKey(keyEsc)
	id := r.awaiting(r.result(res))
	poll := r.call("latch_await_decision", map[string]any{"invocation_id": id})
	sendPrompt(t, tm, "/approve a1")
	if got := r.result(poll); !strings.HasPrefix(got, "true ") || !strings.Contains(got, "permissions.rules[0]") {
		t.Errorf("the poll after /approve got %q, want the refusal naming the rule; screen:\n%s", got, dumpScreen(tm.screen()))
	}
	quitAndCheck(t, tm)
}
