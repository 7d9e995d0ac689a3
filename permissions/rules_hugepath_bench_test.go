package permissions

import (
	"fmt"
	"strings"
	"testing"
)

// hugePath is a path of about size bytes under folder: the segments
// "w/.git/z/" over and over, so that every ".git" a rule asks for is
// there, and no "hooks".
func hugePath(folder string, size int) string {
	var b strings.Builder
	b.WriteString(folder)
	for b.Len() < size {
		b.WriteString("/w/.git/z")
	}
	return b.String()
}

// hugePathRules are 1,000 rules with up to 5 "**" each, a near miss of
// a path under ~/src/proj: like benchRules (their own folder, file name
// or command), and every tenth one with no folder of its own
// (~/**/.git/**/hooks/**/xN/**), which the index cannot tell apart and
// which is matched against the whole path.
func hugePathRules(tb testing.TB) []Rule {
	tb.Helper()
	var out []Rule
	for i := range 1000 {
		spec := RuleSpec{Tool: "read_text_file", Decision: []string{"allow", "ask", "deny"}[i%3], Args: map[string]any{}}
		server := "fs"
		switch {
		case i%10 == 0:
			spec.Args["path"] = fmt.Sprintf("~/**/.git/**/hooks/**/x%d/**", i)
		case i%4 == 0:
			spec.Args["path"] = fmt.Sprintf("~/src/proj%d/**/.git/**/hooks/**/x/**/y/**", i)
		case i%4 == 1:
			spec.Tool, server = "*", ""
			spec.Args["*"] = fmt.Sprintf("/etc/secret%d/**/a/**/b/**", i)
		case i%4 == 2:
			spec.Args["path"] = fmt.Sprintf("re:/var/log/app%d/.*\\.log", i)
		default:
			spec.Args["path"] = fmt.Sprintf("~/**/.git/**/*.ext%d", i)
		}
		r, err := CompileRule(spec, server, fmt.Sprintf("rules[%d]", i), testHome)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// BenchmarkDecideHugePath is the gate's decision on a call with a 1 MB
// path against 1,000 rules with up to 5 "**" each (the target is at most
// 5 ms a call).
func BenchmarkDecideHugePath(b *testing.B) {
	g := NewGate(Policy{Rules: hugePathRules(b), Home: testHome, Servers: []string{"fs"}})
	c := Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file",
		Args: map[string]any{"path": hugePath("~/src/proj", 1<<20)}}
	b.ReportAllocs()
	for b.Loop() {
		if v := g.Decide(c); v.Rule != "" {
			b.Fatalf("%s decided the call", v.Rule)
		}
	}
}

// BenchmarkDecideHugePathAllTried is the worst case of it: 1,000 rules
// alike in every key (~/**/.git/**/hooks/**/xN/**), so that each is
// matched against the whole 1 MB path.
func BenchmarkDecideHugePathAllTried(b *testing.B) {
	var rules []Rule
	for i := range 1000 {
		rules = append(rules, mustRule(b, "fs", "read_text_file",
			map[string]any{"path": fmt.Sprintf("~/**/.git/**/hooks/**/x%d/**", i)}, "deny"))
	}
	g := NewGate(Policy{Rules: rules, Home: testHome, Mode: Auto, Servers: []string{"fs"}})
	c := Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file",
		Args: map[string]any{"path": hugePath("~/src/proj", 1<<20)}}
	for b.Loop() {
		if v := g.Decide(c); v.Rule != "" {
			b.Fatalf("%s decided the call", v.Rule)
		}
	}
}

// BenchmarkDecideGitHooks is the call that stalled the gateway: a 450 KB
// path against ~/**/.git/**/hooks/**.
func BenchmarkDecideGitHooks(b *testing.B) {
	g := NewGate(Policy{Rules: []Rule{mustRule(b, "fs", "*", map[string]any{"path": "~/**/.git/**/hooks/**"}, "deny")},
		Home: testHome, Mode: Auto, Servers: []string{"fs"}})
	c := Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file",
		Args: map[string]any{"path": hugePath("~/src/proj", 450<<10)}}
	for b.Loop() {
		if v := g.Decide(c); v.Decision != Allow {
			b.Fatalf("decided %v: %s", v.Decision, v.Reason)
		}
	}
}

// BenchmarkMatchSegsOldNew compares, in one run, the old path matcher
// (oldMatchSegs, kept as the oracle, with the split it needed) with
// matchSegs on ~/**/.git/**/hooks/** and paths of growing length: the old
// one's time grows with the square of it, the new one's with it.
func BenchmarkMatchSegsOldNew(b *testing.B) {
	p := strings.Split(testHome+"/**/.git/**/hooks/**", "/")
	for _, size := range []int{4 << 10, 16 << 10} {
		path := hugePath(testHome+"/src/proj", size)
		for _, m := range []struct {
			name  string
			match func(p []string, s string) bool
		}{{"old", func(p []string, s string) bool { return oldMatchSegs(p, strings.Split(s, "/")) }}, {"new", matchSegs}} {
			b.Run(fmt.Sprintf("%dKB/%s", size>>10, m.name), func(b *testing.B) {
				for b.Loop() {
					if m.match(p, path) {
						b.Fatal("matched")
					}
				}
			})
		}
	}
}
