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
