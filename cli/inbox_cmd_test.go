package cli

import (
	"os"
	"strings"
	"testing"

	"latch/config"
	"latch/permissions"
	"latch/session"
)

// TestInboxRuleSavesTheNarrowestRule: R in latch inbox offers the rule the
// chat's A step offers first for the call (its exact values), shown as it
// is written; saved, the config loads it, and a gate of that config
// allows the same call (in ask mode) where before it asked. Arguments
// whose logged form hides a credential get no rule.
func TestInboxRuleSavesTheNarrowestRule(t *testing.T) {
	path, dir := writeConfig(t, `{"permissions": {"mode": "ask"}, "mcpServers": {"mem": {"command": "x"}}}`)
	env := envOf(map[string]string{"HOME": dir})
	cfg, err := config.Load(path, env)
	if err != nil {
		t.Fatal(err)
	}
	s := &settings{cfg: cfg, getenv: env, mode: "ask"}
	p := session.ParkedCall{Server: "mem", Tool: "mem__create_entities", Client: "ci",
		Arguments: map[string]any{"name": "alice"}}
	call := permissions.Call{Server: "mem", Tool: "create_entities", Name: "mem__create_entities", Args: p.Arguments}
	if v := permissions.NewGate(s.policy()).Decide(call); v.Decision == permissions.Allow {
		t.Fatalf("before the rule, the call is %v", v.Decision)
	}
	shown, save, err := inboxRule(s, p)
	if err != nil || !strings.Contains(shown, "mem__create_entities") || !strings.Contains(shown, "alice") {
		t.Fatalf("rule %q, %v", shown, err)
	}
	said, err := save()
	if err != nil || !strings.Contains(said, "permissions.rules[0]") {
		t.Fatalf("save: %q, %v", said, err)
	}
	again, err := config.Load(path, env)
	if err != nil {
		t.Fatal(err)
	}
	s.cfg = again
	if v := permissions.NewGate(s.policy()).Decide(call); v.Decision != permissions.Allow {
		t.Errorf("after the rule %s, the call is %v; want allowed", shown, v.Decision)
	}
	call.Args = map[string]any{"name": "bob"}
	if v := permissions.NewGate(s.policy()).Decide(call); v.Decision == permissions.Allow {
		t.Errorf("the rule allows other arguments too: %s", shown)
	}
	p.Arguments = map[string]any{"token": "[redacted]"}
	if _, _, err := inboxRule(s, p); err == nil {
		t.Error("a rule was offered for arguments with a redacted credential")
	}
	if b, _ := os.ReadFile(path); strings.Count(string(b), `"decision": "allow"`) != 1 {
		t.Errorf("the config:\n%s", b)
	}
}
