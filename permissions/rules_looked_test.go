package permissions

import (
	"slices"
	"testing"
)

// TestArgsLookedAt: the arguments the rules about a call's tool look at,
// from global and server rules, without "*" and without the rules of
// other tools: the approval screens show these values whole.
func TestArgsLookedAt(t *testing.T) {
	rules := []Rule{
		mustRule(t, "", "fs__move_file", map[string]any{"source": "~/src/**"}, "allow"),
		mustRule(t, "", "*", map[string]any{"*": "~/.ssh/**", "mode": float64(7)}, "deny"),
		mustRule(t, "fs", "move_file", map[string]any{"comment": "re:.*"}, "ask"),
		mustRule(t, "", "fs__read_text_file", map[string]any{"path": "~/src/**"}, "allow"),
		mustRule(t, "mem", "move_file", map[string]any{"other": "x"}, "deny"),
	}
	g := NewGate(Policy{Mode: Ask, Rules: rules, Servers: []string{"fs", "mem"}, Home: testHome})
	got := g.ArgsLookedAt(Call{Server: "fs", Tool: "move_file", Name: "fs__move_file"})
	if want := []string{"comment", "mode", "source"}; !slices.Equal(got, want) {
		t.Errorf("ArgsLookedAt = %q, want %q", got, want)
	}
	if names := rules[1].ArgNames(); !slices.Equal(names, []string{"*", "mode"}) {
		t.Errorf("ArgNames = %q", names)
	}
}

// TestPathLike: a string that may name a file, by its letters or by its
// argument's name; words stay words.
func TestPathLike(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"x", "~/a", true}, {"x", "./a", true}, {"x", ".ssh", true}, {"x", "a/b", true}, {"x", `a\b`, true},
		{"path", "notes.txt", true}, {"destination", "b", true}, {"filePath", "b", true}, {"target_dir", "b", true},
		{"note", "likes tea", false}, {"sourceCode", "x = 1", false}, {"text", "a.b", false},
	} {
		if got := PathLike(tc.name, tc.value); got != tc.want {
			t.Errorf("PathLike(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}
