package permissions

import (
	"fmt"
	"strings"
	"testing"
)

const testHome = "/home/me"

// mustRule compiles a global rule (server "" ) or fails the test.
func mustRule(t testing.TB, server, tool string, args map[string]any, decision string) Rule {
	t.Helper()
	r, err := CompileRule(RuleSpec{Tool: tool, Args: args, Decision: decision}, server, "test rule "+tool, testHome)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fsRead is a call of fs's read_text_file with the given path.
func fsRead(path any) Call {
	return Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file", Args: map[string]any{"path": path}}
}

// issueRules are the rules of issue 24's example.
func issueRules(t testing.TB) []Rule {
	return []Rule{
		mustRule(t, "", "fs__read_text_file", map[string]any{"path": "~/src/proj/**"}, "allow"),
		mustRule(t, "", "*", map[string]any{"*": "~/.ssh/**"}, "deny"),
		mustRule(t, "", "shell__run", map[string]any{"command": `re:git (status|diff|log)\b.*`}, "allow"),
	}
}

// TestRulesDecideTheIssueExamples: reading the project runs without
// asking in read_only, ~/.ssh is refused whatever the path says, the git
// commands run and nothing else does.
func TestRulesDecideTheIssueExamples(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Rules: issueRules(t), Home: testHome, Servers: []string{"fs", "shell"}})
	shell := func(cmd string) Call {
		return Call{Server: "shell", Tool: "run", Name: "shell__run", Args: map[string]any{"command": cmd}}
	}
	cases := []struct {
		call Call
		want Decision
	}{
		{fsRead("/home/me/src/proj/main.go"), Allow},
		{fsRead("~/src/proj/a/b/c.txt"), Allow},
		{fsRead("/home/me/src/proj"), Allow},
		{fsRead("/home/me/src/proj/"), Allow},
		{fsRead("/home/me/src/proj//x"), Allow},
		{fsRead("/home/me/src/proj/./x"), Allow},
		{fsRead("/home/me/src/other/x"), Deny},
		{fsRead("/home/me/src/proj/../other/x"), Deny},
		{fsRead("~/src/proj/../../.ssh/id_rsa"), Deny},
		{fsRead("/home/me/.ssh/id_rsa"), Deny},
		{fsRead("~me/src/proj/x"), Deny},
		{fsRead(`/home/me/src/proj\..\..\.ssh\id`), Deny},
		{fsRead("src/proj/x"), Deny},
		{fsRead(42), Deny},
		{Call{Server: "fs", Tool: "write_file", Name: "fs__write_file",
			Args: map[string]any{"path": "/tmp/x", "content": "~/.ssh/id"}}, Deny},
		{shell("git status"), Allow},
		{shell("git log --oneline"), Allow},
		{shell("git push --force"), Deny},
		{shell("rm -rf / ; git status"), Deny},
		{shell("git statusx"), Deny},
	}
	for _, tc := range cases {
		v := g.Decide(tc.call)
		if v.Decision != tc.want {
			t.Errorf("%s %v: %v (%s), want %v", tc.call.Name, tc.call.Args, v.Decision, v.Reason, tc.want)
		}
	}
	v := g.Decide(fsRead("~/src/proj/../../.ssh/id_rsa"))
	if v.Rule != "test rule *" || !strings.Contains(v.Reason, "*(*=~/.ssh/**)") {
		t.Errorf("the verdict does not name the deny rule: Rule %q, Reason %q", v.Rule, v.Reason)
	}
}

// TestRuleModeTable checks every cell of the rules' table
// (docs/PERMISSIONS.md): mode × the rule that matched × whether the tool
// is allow-listed.
func TestRuleModeTable(t *testing.T) {
	t.Parallel()
	// mode → decision for: deny rule, ask rule, allow rule (tool not
	// listed), allow rule (listed), ask rule with no one to ask.
	table := []struct {
		mode                                     Mode
		deny, ask, allowOther, allowListed, ask1 Decision
	}{
		{ReadOnly, Deny, AskUser, Allow, Allow, Deny},
		{Ask, Deny, AskUser, Allow, Allow, Deny},
		{Approve, Deny, Park, Park, Allow, Park},
		{Auto, Deny, AskUser, Allow, Allow, Deny},
	}
	args := map[string]any{"path": "/p/**"}
	for _, row := range table {
		for _, listed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/listed=%v", row.mode, listed), func(t *testing.T) {
				t.Parallel()
				decide := func(decision string, interactive bool) Verdict {
					p := Policy{Mode: row.mode, Rules: []Rule{mustRule(t, "fs", "read_text_file", args, decision)}}
					if listed {
						p.ServerAllow = map[string][]string{"fs": {"read_text_file"}}
					}
					g := NewGate(p)
					g.SetInteractive(interactive)
					return g.Decide(fsRead("/p/x"))
				}
				wantAllow := row.allowOther
				if listed {
					wantAllow = row.allowListed
				}
				for _, c := range []struct {
					decision    string
					interactive bool
					want        Decision
				}{
					{"deny", true, row.deny}, {"ask", true, row.ask}, {"allow", true, wantAllow}, {"ask", false, row.ask1},
				} {
					v := decide(c.decision, c.interactive)
					if v.Decision != c.want {
						t.Errorf("%s rule (interactive %v): %v (%s), want %v", c.decision, c.interactive, v.Decision, v.Reason, c.want)
					}
					if c.decision != "allow" && v.Rule == "" {
						t.Errorf("%s rule: the verdict names no rule (%s)", c.decision, v.Reason)
					}
				}
			})
		}
	}
}

// TestDenyRuleBeatsGrants: a deny rule refuses the call even when the
// tool is granted for the session, allow-listed and the mode is auto.
func TestDenyRuleBeatsGrants(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Auto, Allow: []string{"fs__read_text_file"}, Home: testHome,
		Rules: []Rule{mustRule(t, "", "*", map[string]any{"*": "~/.ssh/**"}, "deny")}})
	g.Grant("fs__read_text_file", "")
	if v := g.Decide(fsRead("/home/me/.ssh/config")); v.Decision != Deny {
		t.Fatalf("%v (%s), want deny", v.Decision, v.Reason)
	}
	if v := g.Decide(fsRead("/home/me/notes")); v.Decision != Allow {
		t.Fatalf("%v (%s), want allow", v.Decision, v.Reason)
	}
}

// TestRuleMatchers covers the matchers one by one.
func TestRuleMatchers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern any
		value   any
		want    bool
	}{
		{"*.txt", "notes.txt", true},
		{"*.txt", "a/b/notes.txt", true},
		{"git push *", "git push origin feature/x", true},
		{"/p/*", "/p/a", true},
		{"/p/*", "/p/a/b", false},
		{"/p/?.go", "/p/ä.go", true},
		{"/p/**/x", "/p/x", true},
		{"/p/**/x", "/p/a/b/x", true},
		{"/p/**", "/p", true},
		{"/p/**", "/pq", false},
		{"/p/**", "/p/../q", false},
		{"/p/", "/p", true},
		{`\p\**`, "/p/a", true},
		{"re:a+", "aaa", true},
		{"re:a+", "aab", false},
		{"re:/p/.*", "/p/../etc/passwd", false},
		{float64(3), float64(3), true},
		{float64(3), "3", false},
		{true, true, true},
		{true, "true", false},
		{"*", float64(3), false},
	}
	for _, tc := range cases {
		r := mustRule(t, "fs", "read_text_file", map[string]any{"path": tc.pattern}, "allow")
		g := NewGate(Policy{Rules: []Rule{r}, Home: testHome})
		if got := g.Decide(fsRead(tc.value)).Decision == Allow; got != tc.want {
			t.Errorf("pattern %v, value %v: matched %v, want %v", tc.pattern, tc.value, got, tc.want)
		}
	}
}

// TestListArgument: an allow rule vouches for a list only when every
// element matches; a deny rule fires on any.
func TestListArgument(t *testing.T) {
	t.Parallel()
	call := Call{Server: "fs", Tool: "read_multiple_files", Name: "fs__read_multiple_files",
		Args: map[string]any{"paths": []any{"/p/a", "/q/b"}}}
	allow := NewGate(Policy{Rules: []Rule{mustRule(t, "fs", "*", map[string]any{"paths": "/p/**"}, "allow")}})
	if v := allow.Decide(call); v.Decision != Deny {
		t.Errorf("allow rule on a list with an element outside: %v, want deny (read_only)", v.Decision)
	}
	deny := NewGate(Policy{Mode: Auto, Rules: []Rule{mustRule(t, "fs", "*", map[string]any{"paths": "/q/**"}, "deny")}})
	if v := deny.Decide(call); v.Decision != Deny {
		t.Errorf("deny rule on a list with one element inside: %v, want deny", v.Decision)
	}
}

// TestRuleErrorsNameTheRule: every compile error names the rule and the
// field.
func TestRuleErrorsNameTheRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec  RuleSpec
		field string
	}{
		{RuleSpec{Tool: "", Decision: "allow"}, "tool"},
		{RuleSpec{Tool: "fs__*", Decision: "allow"}, "tool"},
		{RuleSpec{Tool: "t", Decision: "maybe"}, "decision"},
		{RuleSpec{Tool: "t", Decision: "deny", Args: map[string]any{"path": "re:("}}, "args.path"},
		{RuleSpec{Tool: "t", Decision: "deny", Args: map[string]any{"path": "/a/../b"}}, "args.path"},
		{RuleSpec{Tool: "t", Decision: "deny", Args: map[string]any{"path": "~bob/x"}}, "args.path"},
		{RuleSpec{Tool: "t", Decision: "deny", Args: map[string]any{"path": "/a**/b"}}, "args.path"},
		{RuleSpec{Tool: "t", Decision: "deny", Args: map[string]any{"path": nil}}, "args.path"},
		{RuleSpec{Tool: "t", Decision: "deny", Args: map[string]any{"*": float64(1)}}, "args.*"},
		{RuleSpec{Tool: "t", Decision: "deny", Args: map[string]any{"path": ""}}, "args.path"},
		{RuleSpec{Tool: "t", Decision: "allow", Args: map[string]any{"path": "re:a)|(.*"}}, "args.path"},
		{RuleSpec{Tool: "t", Decision: "allow", Args: map[string]any{"path": `re:\Qa`}}, "args.path"},
	}
	for _, tc := range cases {
		_, err := CompileRule(tc.spec, "", "config x.json: permissions.rules[2]", testHome)
		if err == nil {
			t.Errorf("%+v: no error", tc.spec)
			continue
		}
		want := "config x.json: permissions.rules[2]: " + tc.field + ": "
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: error %q does not start with %q", tc.spec, err, want)
		}
	}
}

// TestCompactForm reads the compact form, quoting and all.
func TestCompactForm(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want map[string]any
	}{
		{"fs__read_text_file(path=~/src/proj/**)", map[string]any{"path": "~/src/proj/**"}},
		{"t(a=1, b = true ,c=x y)", map[string]any{"a": float64(1), "b": true, "c": "x y"}},
		{`t(path="~/a,b/**")`, map[string]any{"path": "~/a,b/**"}},
		{`t(cmd=re:^git (status|log)\b.*)`, map[string]any{"cmd": `re:^git (status|log)\b.*`}},
		{`t(cmd="re:echo \"hi\"", n="5")`, map[string]any{"cmd": `re:echo "hi"`, "n": "5"}},
		{"*(*=~/.ssh/**)", map[string]any{"*": "~/.ssh/**"}},
	}
	for _, tc := range cases {
		spec, err := ParseCompact(tc.in, "allow", "--allow")
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if fmt.Sprint(spec.Args) != fmt.Sprint(tc.want) {
			t.Errorf("%s: args %v, want %v", tc.in, spec.Args, tc.want)
		}
		back, err := ParseCompact(FormatCompact(spec), "allow", "--allow")
		if err != nil || fmt.Sprint(back) != fmt.Sprint(spec) {
			t.Errorf("%s: formatted as %s, read back as %v (%v)", tc.in, FormatCompact(spec), back, err)
		}
	}
	for _, bad := range []string{"t", "t()", "t(a)", "t(a=)", "t(a=1,)", `t(a="x)`, `t(a=x"y)`, "t(a=1, a=2)", `t(a="x" y)`} {
		if _, err := ParseCompact(bad, "deny", "--deny "+bad); err == nil || !strings.HasPrefix(err.Error(), "--deny "+bad+": ") {
			t.Errorf("%s: error %v, want one naming the rule", bad, err)
		}
	}
}

// TestManyStrings: a call with more strings than readings kept in a list
// is decided the same: a deny rule fires on the one string it covers, an
// allow rule vouches only when every string matches.
func TestManyStrings(t *testing.T) {
	t.Parallel()
	var paths []any
	for i := range 3 * listedReadings {
		paths = append(paths, fmt.Sprintf("/p/f%d", i))
	}
	call := func(extra string) Call {
		return Call{Server: "fs", Tool: "read_multiple_files", Name: "fs__read_multiple_files",
			Args: map[string]any{"paths": append(append([]any(nil), paths...), extra), "again": paths}}
	}
	deny := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{mustRule(t, "", "*", map[string]any{"*": "~/.ssh/**"}, "deny")}})
	if v := deny.Decide(call("/home/me/.ssh/id")); v.Decision != Deny {
		t.Errorf("a deny rule on the last of many strings: %v", v.Decision)
	}
	if v := deny.Decide(call("/p/x")); v.Decision != Allow {
		t.Errorf("no string under ~/.ssh: %v, want allow (auto)", v.Decision)
	}
	allow := NewGate(Policy{Rules: []Rule{mustRule(t, "fs", "*", map[string]any{"*": "/p/**"}, "allow")}})
	if v := allow.Decide(call("/p/x")); v.Decision != Allow {
		t.Errorf("every string under /p: %v, want allow", v.Decision)
	}
	if v := allow.Decide(call("/q/x")); v.Decision != Deny {
		t.Errorf("one string outside /p: %v, want deny (read_only)", v.Decision)
	}
}

// TestMayAsk: an ask rule on a tool's arguments says that some call of
// it may be put to a person; a deny or allow rule does not.
func TestMayAsk(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Rules: []Rule{
		mustRule(t, "fs", "write_file", map[string]any{"path": "/etc/**"}, "ask"),
		mustRule(t, "", "fs__read_text_file", map[string]any{"path": "/p/**"}, "allow"),
		mustRule(t, "", "*", map[string]any{"*": "/s/**"}, "deny"),
	}})
	if !g.MayAsk(Call{Server: "fs", Tool: "write_file", Name: "fs__write_file"}) {
		t.Error("write_file has an ask rule")
	}
	if g.MayAsk(fsRead(nil)) || g.MayAsk(Call{Server: "mem", Tool: "write_file", Name: "mem__write_file"}) {
		t.Error("no ask rule covers read_text_file, nor mem's write_file")
	}
}
