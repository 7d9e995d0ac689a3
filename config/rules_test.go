package config

import (
	"strings"
	"testing"
)

// TestLoadConfigRuleErrors: every error names the file, the rule's index
// and the field.
func TestLoadConfigRuleErrors(t *testing.T) {
	path, dir := writeConfig(t, `{
	  "permissions": {"rules": [
	    {"tool": "*", "decision": "deny"},
	    {"tool": "x__a", "args": {"path": "re:("}, "decision": "allow"},
	    {"tool": "x__a", "args": {"path": "/a/**"}, "decision": "maybe"},
	    {"tool": "x__a", "args": {"path": ["/a"]}, "decision": "deny"},
	    {"tool": "x__a", "decision": "deny", "when": "always"},
	    {"decision": "deny"},
	    "deny",
	    {"tool": "x___foo", "decision": "deny"}]},
	  "mcpServers": {"x": {"command": "a"}, "x_": {"command": "b", "rules": [{"tool": "t", "args": {"p": "/a/../b"}, "decision": "allow"}]}}}`)
	_, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"config " + path + ": permissions.rules[1].args.path: re: ",
		"config " + path + ": permissions.rules[2].decision: \"maybe\" is not a decision",
		"config " + path + ": permissions.rules[3].args.path: expected a string",
		"config " + path + ": permissions.rules[4]: unknown key \"when\"",
		"config " + path + ": permissions.rules[5]: missing \"tool\"",
		"config " + path + ": permissions.rules[6]: expected an object",
		"config " + path + ": permissions.rules[7].tool: \"x___foo\" is ambiguous",
		"config " + path + `: server "x_": rules[0].args.p: "/a/../b": a path pattern`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no error line starts %q; got:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "rules[0]:") && strings.Contains(err.Error(), "permissions.rules[0]") {
		t.Errorf("rules[0] is valid; got:\n%v", err)
	}
}

// TestLoadConfigRuleWarnings: a rule that can match no call is warned
// about, naming it.
func TestLoadConfigRuleWarnings(t *testing.T) {
	path, dir := writeConfig(t, `{
	  "permissions": {"rules": [{"tool": "read_text_file", "decision": "deny"}]},
	  "mcpServers": {"fs": {"command": "x", "rules": [{"tool": "fs__read_text_file", "decision": "deny"}]}}}`)
	cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	warns := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{
		"config " + path + `: permissions.rules[0].tool: "read_text_file" names no configured server's tool`,
		"config " + path + `: server "fs": rules[0].tool: "fs__read_text_file": a server's rules name its own tools ("read_text_file")`,
	} {
		if !strings.Contains(warns, want) {
			t.Errorf("no warning %q; got:\n%s", want, warns)
		}
	}
}
