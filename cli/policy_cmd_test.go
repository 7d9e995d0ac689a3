package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"latch/permissions"
	"latch/session/ollamatest"
	"latch/ui/sanitize"
)

// policyConfig has a deny rule for ~/.ssh, an allow rule for the project
// and an ask rule for writes, on server fs.
const policyConfig = `{
  "permissions": {"rules": [{"tool": "*", "args": {"*": "~/.ssh/**"}, "decision": "deny"}]},
  "mcpServers": {"fs": {"command": "x", "rules": [
    {"tool": "read_text_file", "args": {"path": "~/src/proj/**"}, "decision": "allow"},
    {"tool": "write_file", "decision": "ask"}]}}}`

// runLatch runs latch in-process with HOME (and the XDG folders) in dir.
func runLatch(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := envOf(map[string]string{"HOME": dir, "XDG_CONFIG_HOME": dir + "/.config", "XDG_STATE_HOME": dir + "/.state"})
	code = run(args, strings.NewReader(""), &out, &errb, env)
	return out.String(), errb.String(), code
}

// TestPolicyCheck: the decision, the rule or default behind it, and the
// exit status: 0 allow, 3 ask or park, 1 deny, 2 usage.
func TestPolicyCheck(t *testing.T) {
	path, dir := writeConfig(t, policyConfig)
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"fs__read_text_file", `{"path": "~/src/proj/main.go"}`}, 0,
			[]string{"allow\n", `by:     rule fs: read_text_file(path=~/src/proj/**) (config ` + path + `: server "fs": rules[0])`}},
		{[]string{"fs__read_text_file", `{"path": "~/src/proj/../../.ssh/id_rsa"}`}, 1,
			[]string{"deny\n", "by:     rule *(*=~/.ssh/**) (config " + path + ": permissions.rules[0])"}},
		{[]string{"fs__read_text_file", `{"path": "/etc/passwd"}`}, 1,
			[]string{"deny\n", "by:     the mode: read_only"}},
		{[]string{"fs__write_file", `{"path": "/tmp/x", "content": "hi"}`}, 3, []string{"ask\n", `server "fs": rules[1]`}},
		{[]string{"fs__write_file", `{"path": "/tmp/x"}`, "--mode", "approve"}, 3, []string{"park\n"}},
		{[]string{"fs__write_file", `{"path": "/tmp/x"}`, "--non-interactive"}, 1, []string{"deny\n", "no one to ask"}},
		{[]string{"fs__list_directory", `{"path": "/tmp"}`, "--mode", "auto"}, 0, []string{"allow\n", "the mode: auto"}},
		{[]string{"fs__list_directory", `{"path": "~/.ssh"}`, "--mode", "auto"}, 1, []string{"deny\n"}},
	}
	for _, tc := range cases {
		out, errs, code := runLatch(t, dir, append([]string{"--config", path, "policy", "check"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("policy check %q: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("policy check %q: output does not say %q:\n%s", tc.args, w, out)
			}
		}
	}
	for _, bad := range [][]string{
		{"policy"}, {"policy", "check", "fs__read_text_file"}, {"policy", "check", "fs__x", "[1]"},
		{"policy", "check", "fs__x", "{"}, {"policy", "check", "nope__x", "{}"}, {"policy", "check", "fs__x", "{}", "--mode", "yes"},
		{"policy", "frobnicate"}, {"policy", "list", "extra"},
	} {
		if _, errs, code := runLatch(t, dir, append([]string{"--config", path}, bad...)...); code != exitUsage || errs == "" {
			t.Errorf("latch %q: exit %d (%q), want 2 and a message", bad, code, errs)
		}
	}
}

// TestPolicyList: the modes, the allow-list and every rule, each with
// where it comes from, flags first.
func TestPolicyList(t *testing.T) {
	path, dir := writeConfig(t, policyConfig)
	out, errs, code := runLatch(t, dir, "--config", path, "--allow", "fs__list_directory", "--deny", `fs__write_file(path="/etc/**")`,
		"policy", "list", "--mode", "ask")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{
		"mode: ask\n",
		"fs__list_directory", "--allow",
		"deny  fs__write_file(path=/etc/**)\n        from --deny \"fs__write_file(path=\\\"/etc/**\\\")\"",
		"deny  *(*=~/.ssh/**)\n        from config " + path + ": permissions.rules[0]",
		"allow fs: read_text_file(path=~/src/proj/**)\n        from config " + path + `: server "fs": rules[0]`,
		"ask   fs: write_file\n        from config " + path + `: server "fs": rules[1]`,
	}
	last := -1
	for _, w := range want {
		i := strings.Index(out, w)
		if i < 0 || i < last {
			t.Fatalf("the list does not say %q (after the line before):\n%s", w, out)
		}
		last = i
	}
	if out != sanitize.Text(out) {
		t.Error("the list is not sanitized")
	}
}

// TestPolicyCheckEqualsLiveGate: for calls a model makes to the real
// server-memory in a -p run, latch policy check --non-interactive with the
// same arguments gives the decision the live gate gave, and names the same
// rule.
func TestPolicyCheckEqualsLiveGate(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{
		"permissions": map[string]any{"rules": []any{
			map[string]any{"tool": "*", "args": map[string]any{"*": "re:.*secret.*"}, "decision": "deny"},
			map[string]any{"tool": "mem__create_entities", "args": map[string]any{"*": "re:Ada|person|wrote the first program"},
				"decision": "allow"},
			map[string]any{"tool": "mem__delete_entities", "decision": "ask"}}},
	}, true)
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "Ada", "entityType": "person",
			"observations": []any{"wrote the first program"}}}}, "allowed"},
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "Bob", "entityType": "person",
			"observations": []any{"wrote the first program"}}}}, "denied"},
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "Ada", "entityType": "person",
			"observations": []any{"a secret"}}}}, "denied"},
		{"delete_entities", map[string]any{"entityNames": []any{"Ada"}}, "denied"},
		{"read_graph", map[string]any{}, "allowed"},
	}
	for i, c := range calls {
		r.fake.Script(memCall("call_"+c.tool, c.tool, c.args), ollamatest.TextTurn("ok"))
		res := r.run("", "--model", e2eModel, "-p", "go", "--json")
		var live map[string]any
		for _, e := range jsonLines(t, res.stdout) {
			if e["type"] == "permission" {
				live = e
			}
		}
		if live == nil || live["decision"] != c.want {
			t.Fatalf("call %d: live permission event %v, want %s", i, live, c.want)
		}
		args, _ := json.Marshal(c.args)
		check := r.run("", "policy", "check", "mem__"+c.tool, string(args), "--non-interactive")
		wantCode := map[string]int{"allowed": 0, "denied": 1}[c.want]
		if check.code != wantCode {
			t.Errorf("call %d: policy check exit %d, the live gate %s", i, check.code, c.want)
		}
		if rule, _ := live["rule"].(string); rule != "" && !strings.Contains(check.stdout, "("+rule+")") {
			t.Errorf("call %d: the live gate names rule %q, policy check says:\n%s", i, rule, check.stdout)
		}
	}
}

// latch policy check hands the gate the numbers as written
// (json.Number), as the live gate now gets a client's or a model's call:
// 2^53+1 is not 2^53 (it was, through float64).
func TestPolicyCheckKeepsNumbersExact(t *testing.T) {
	f, err := parseFlags([]string{"policy", "check", "fs__read_text_file", `{"n": 9007199254740993, "deep": [1.0]}`}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a := f.policy
	c, err := policyCall(permissions.Policy{Servers: []string{"fs"}}, a.tool, a.args)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(c.Args); string(b) != `{"deep":[1.0],"n":9007199254740993}` {
		t.Errorf("the gate is asked about %s", b)
	}
}
