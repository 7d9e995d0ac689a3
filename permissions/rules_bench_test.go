package permissions

import (
	"fmt"
	"testing"
)

// benchRules are n rules: each pattern a near miss of the benchmark's call
// (a folder next to the one it reads, a regexp of another command), with
// every tenth rule for every tool ("*") and the rest spread over 100
// tools of fs, or all on the called tool when onTool is set.
func benchRules(b *testing.B, n int, onTool bool) []Rule {
	b.Helper()
	var out []Rule
	for i := range n {
		spec := RuleSpec{Decision: []string{"allow", "ask", "deny"}[i%3], Args: map[string]any{}}
		server := "fs"
		switch {
		case onTool:
			spec.Tool = "read_text_file"
		case i%10 == 0:
			spec.Tool, server = "*", ""
		default:
			spec.Tool = fmt.Sprintf("tool_%d", i%100)
		}
		switch i % 4 {
		case 0:
			spec.Args["path"] = fmt.Sprintf("~/src/proj%d/**", i)
		case 1:
			spec.Args["*"] = fmt.Sprintf("/etc/secret%d/**", i)
		case 2:
			spec.Args["path"] = fmt.Sprintf("re:/var/log/app%d/.*\\.log", i)
		default:
			spec.Args["path"] = fmt.Sprintf("*.ext%d", i)
		}
		r, err := CompileRule(spec, server, fmt.Sprintf("rules[%d]", i), testHome)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func benchDecide(b *testing.B, onTool bool) {
	g := NewGate(Policy{Rules: benchRules(b, 1000, onTool), Home: testHome, Servers: []string{"fs"}})
	c := Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file",
		Args: map[string]any{"path": "~/src/proj/../proj/main.go", "encoding": "utf-8", "tail": float64(20)}}
	b.ReportAllocs()
	for b.Loop() {
		g.Decide(c)
	}
}

// BenchmarkDecide1000Rules is the gate's decision time with 1,000 rules,
// a tenth of them for every tool (the target is at most 50 µs a call).
func BenchmarkDecide1000Rules(b *testing.B) { benchDecide(b, false) }

// BenchmarkDecide1000RulesOneTool is the worst case: all 1,000 rules are
// about the called tool, and none matches.
func BenchmarkDecide1000RulesOneTool(b *testing.B) { benchDecide(b, true) }

// benchOneTool is the gate's decision time with 1,000 rules about the
// called tool, the i-th with the patterns args(i), none matching the
// call.
func benchOneTool(b *testing.B, args func(i int) map[string]any) {
	var rules []Rule
	for i := range 1000 {
		r, err := CompileRule(RuleSpec{Tool: "read_text_file", Decision: []string{"allow", "ask", "deny"}[i%3],
			Args: args(i)}, "fs", fmt.Sprintf("rules[%d]", i), testHome)
		if err != nil {
			b.Fatal(err)
		}
		rules = append(rules, r)
	}
	g := NewGate(Policy{Rules: rules, Home: testHome, Servers: []string{"fs"}})
	c := Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file",
		Args: map[string]any{"path": "~/src/proj/../proj/main.go", "encoding": "utf-8", "tail": float64(20)}}
	b.ReportAllocs()
	for b.Loop() {
		g.Decide(c)
	}
}

// BenchmarkDecide1000RulesSharedKeys: the rules share the folder and the
// file name's end the call has (~/src/proj/xN*/*.go), so the index tries
// every one.
func BenchmarkDecide1000RulesSharedKeys(b *testing.B) {
	benchOneTool(b, func(i int) map[string]any { return map[string]any{"path": fmt.Sprintf("~/src/proj/x%d*/*.go", i)} })
}

// BenchmarkDecide1000RulesRegexps: the rules are regular expressions
// with no literal start (re:.*/secretN/.*), which the index cannot key:
// every one is tried.
func BenchmarkDecide1000RulesRegexps(b *testing.B) {
	benchOneTool(b, func(i int) map[string]any { return map[string]any{"path": fmt.Sprintf("re:.*/secret%d/.*", i)} })
}

// BenchmarkDecide1000RulesSharedFolder: every rule allows the folder the
// call reads and differs by a number (tail=N, N never the call's), so
// only the numbers tell them apart.
func BenchmarkDecide1000RulesSharedFolder(b *testing.B) {
	benchOneTool(b, func(i int) map[string]any { return map[string]any{"path": "~/src/proj/**", "tail": float64(100 + i)} })
}

// BenchmarkDecide1000RulesAlike is the floor of the index: 1,000 rules
// alike in every key (~/src/proj/*.go and a regexp of a command no call
// gives), so each is tried.
func BenchmarkDecide1000RulesAlike(b *testing.B) {
	benchOneTool(b, func(i int) map[string]any {
		return map[string]any{"path": "~/src/proj/*.go", "encoding": fmt.Sprintf("re:utf-(%d|16)", 100+i)}
	})
}
