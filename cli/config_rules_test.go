package cli

import (
	"strings"
	"testing"

	"latch/permissions"
)

// TestFlagRules: --allow takes a name or the compact form, --deny either;
// an error names the flag and the rule as given.
func TestFlagRules(t *testing.T) {
	entries, rules, err := flagRules([]string{"fs__read", "fs__read_text_file(path=~/src/**)"}, []string{"*(*=~/.ssh/**)"},
		[]string{"fs"}, "/home/me")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0] != "fs__read" || len(rules) != 2 || rules[0].Decision != permissions.Deny ||
		rules[1].Decision != permissions.Allow || rules[1].Origin != `--allow "fs__read_text_file(path=~/src/**)"` {
		t.Fatalf("entries %q, rules %+v", entries, rules)
	}
	for _, tc := range []struct{ allow, deny, want string }{
		{allow: "fs__x(path=[)", want: `--allow "fs__x(path=[)": `},
		{allow: "fs__x(path=re:()", want: `--allow "fs__x(path=re:()": args.path: re: `},
		{deny: `fs__x(a="b)`, want: `--deny "fs__x(a=\"b)": args: `},
		{deny: "fs__*", want: `--deny "fs__*": tool: `},
		{allow: "fs__*", want: `--allow "fs__*": matching is exact`},
	} {
		var a, d []string
		if tc.allow != "" {
			a = []string{tc.allow}
		}
		if tc.deny != "" {
			d = []string{tc.deny}
		}
		_, _, err := flagRules(a, d, []string{"fs"}, "/home/me")
		if tc.allow == "fs__x(path=[)" {
			if err != nil {
				t.Errorf("%s: %v ('[' is literal in a glob)", tc.allow, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s%s: error %v, want it to start %q", tc.allow, tc.deny, err, tc.want)
		}
	}
}

// TestLoadConfigRules: permissions.rules and a server's rules reach the
// policy, in the order the gate names them, and decide calls.
func TestLoadConfigRules(t *testing.T) {
	path, dir := writeConfig(t, `{
	  "permissions": {"rules": [{"tool": "*", "args": {"*": "~/.ssh/**"}, "decision": "deny"}]},
	  "mcpServers": {"fs": {"command": "x", "rules": [
	    {"tool": "read_text_file", "args": {"path": "~/src/proj/**", "tail": 5, "raw": false}, "decision": "allow"}]}}}`)
	f := flags{config: path, deny: listFlag{"fs__write_file"}}
	s, err := loadSettings(f, envOf(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	p := s.policy()
	var origins []string
	for _, r := range p.Rules {
		origins = append(origins, r.Origin)
	}
	want := []string{`--deny "fs__write_file"`, "config " + path + ": permissions.rules[0]", "config " + path + `: server "fs": rules[0]`}
	if strings.Join(origins, "|") != strings.Join(want, "|") {
		t.Fatalf("rules %q, want %q", origins, want)
	}
	g := permissions.NewGate(p)
	read := func(path string, tail float64) permissions.Decision {
		return g.Decide(permissions.Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file",
			Args: map[string]any{"path": path, "tail": tail, "raw": false}}).Decision
	}
	if d := read(dir+"/src/proj/a.go", 5); d != permissions.Allow {
		t.Errorf("read in the project: %v, want allow", d)
	}
	if d := read(dir+"/src/proj/a.go", 6); d != permissions.Deny {
		t.Errorf("read with another tail: %v, want deny (read_only)", d)
	}
	if d := read(dir+"/src/proj/../../.ssh/id", 5); d != permissions.Deny {
		t.Errorf("read of ~/.ssh through ..: %v, want deny", d)
	}
	if d := g.Decide(permissions.Call{Server: "fs", Tool: "write_file", Name: "fs__write_file"}); d.Decision != permissions.Deny ||
		d.Rule != `--deny "fs__write_file"` {
		t.Errorf("--deny fs__write_file: %+v", d)
	}
}
