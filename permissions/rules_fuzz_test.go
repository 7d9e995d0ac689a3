package permissions

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// FuzzCompactRule reads random --deny values: no panic; every error is a
// *RuleError that names the rule; what parses and compiles is written back
// by FormatCompact as the same rule, and can be decided on.
func FuzzCompactRule(f *testing.F) {
	for _, s := range []string{"fs__read_text_file(path=~/src/proj/**)", `t(a="x,y", b=1, c=true)`,
		`*(*=re:^git (status|log)\b.*)`, "t(a=1,)", `t(a="\u00e9\"")`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		origin := "--deny " + strconv.Quote(s)
		spec, err := ParseCompact(s, "deny", origin)
		if err != nil {
			checkRuleError(t, err, origin)
			return
		}
		r, err := CompileRule(spec, "", origin, testHome)
		if err != nil {
			checkRuleError(t, err, origin)
			return
		}
		back, err := ParseCompact(FormatCompact(spec), "deny", origin)
		if err != nil || fmt.Sprint(back) != fmt.Sprint(spec) {
			t.Fatalf("%q formatted as %q reads back as %v (%v), not %v", s, FormatCompact(spec), back, err, spec)
		}
		args := map[string]any{}
		for name, v := range spec.Args {
			args[name] = v
		}
		NewGate(Policy{Rules: []Rule{r}, Home: testHome}).Decide(Call{Server: "t", Tool: "x", Name: "t__x", Args: args})
	})
}

// FuzzRuleSpec compiles random config rules: no panic, every error names
// the rule, and a compiled rule decides a call that uses its pattern as a
// value without panicking.
func FuzzRuleSpec(f *testing.F) {
	f.Add("fs__read_text_file", "path", "~/src/proj/**", "allow")
	f.Add("*", "*", "~/.ssh/**", "deny")
	f.Add("shell__run", "command", `re:^git (status|diff|log)\b`, "ask")
	f.Add("t", "p", "/a/**/b/**/c/*?", "deny")
	f.Fuzz(func(t *testing.T, tool, name, pattern, decision string) {
		origin := "config c.json: permissions.rules[3]"
		r, err := CompileRule(RuleSpec{Tool: tool, Args: map[string]any{name: pattern}, Decision: decision}, "", origin, testHome)
		if err != nil {
			checkRuleError(t, err, origin)
			return
		}
		g := NewGate(Policy{Rules: []Rule{r}, Home: testHome})
		for _, v := range []any{pattern, strings.ReplaceAll(pattern, "*", "x"), []any{pattern, "/x"}} {
			g.Decide(Call{Server: "fs", Tool: tool, Name: tool, Args: map[string]any{name: v, "other": v}})
		}
	})
}

// checkRuleError fails unless err is a *RuleError whose message starts with
// the rule's origin.
func checkRuleError(t *testing.T, err error, origin string) {
	t.Helper()
	var re *RuleError
	if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), origin+": ") {
		t.Fatalf("error %q (%T) does not name the rule %s", err, err, origin)
	}
}

// FuzzFlagRule reads random values of --allow, --deny, /allow and /deny,
// as the flags and the chat give them: no panic; every error is a
// *RuleError naming the flag and its value; a rule read is given again
// by its FlagText as the same rule.
func FuzzFlagRule(f *testing.F) {
	for _, s := range []string{"fs__read_text_file", "fs__read_text_file(path=~/src/proj/**)", `*(*=~/.ssh/**)`,
		"shell__run(command=\"re:^git (status|diff)\\\\b\")", "t(", "(a=1)", "t(a=~bob/x)", "t(a=/x/../y)", " ", "t(n=-0, b=true)"} {
		f.Add(s, uint8(0))
	}
	flags := []string{"--allow", "--deny", "/allow", "/deny"}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		flag := flags[int(which)%len(flags)]
		origin := flag + " " + strconv.Quote(s)
		r, err := FlagRule(flag, s, testHome)
		if err != nil {
			checkRuleError(t, err, origin)
			return
		}
		text := r.FlagText()
		gotFlag, value, _ := strings.Cut(text, " ")
		back, err := FlagRule(gotFlag, value, testHome)
		if err != nil || gotFlag != flag || back.Compact() != r.Compact() || back.Decision != r.Decision {
			t.Fatalf("%s reads as %s (%s), given again as %q, which reads as %s (%v)", origin, r.Compact(), r.DecisionName(), text, back.Compact(), err)
		}
	})
}
