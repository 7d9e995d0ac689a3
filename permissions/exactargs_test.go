package permissions

import (
	"encoding/json"
	"math"
	"testing"
)

// withArgs is fsWrite with args, in ask mode's terms: a call the gate asks
// about unless a grant covers it.
func withArgs(args map[string]any) Call {
	c := fsWrite
	c.Args = args
	return c
}

func TestGrantArgsCoversOnlyTheseArguments(t *testing.T) {
	t.Parallel()
	granted := map[string]any{"path": "/tmp/a", "opts": map[string]any{"mode": 1.0, "tags": []any{"x", "y"}}, "force": false}
	tests := []struct {
		name string
		c    Call
		want Decision
	}{
		{"same arguments", withArgs(granted), Allow},
		{"same arguments, keys built in another order",
			withArgs(map[string]any{"force": false, "opts": map[string]any{"tags": []any{"x", "y"}, "mode": float64(1)}, "path": "/tmp/a"}), Allow},
		{"another path", withArgs(map[string]any{"path": "/tmp/b", "opts": granted["opts"], "force": false}), AskUser},
		{"a nested value differs", withArgs(map[string]any{"path": "/tmp/a", "opts": map[string]any{"mode": 2.0, "tags": []any{"x", "y"}}, "force": false}), AskUser},
		{"array order differs", withArgs(map[string]any{"path": "/tmp/a", "opts": map[string]any{"mode": 1.0, "tags": []any{"y", "x"}}, "force": false}), AskUser},
		{"a key more", withArgs(map[string]any{"path": "/tmp/a", "opts": granted["opts"], "force": false, "x": nil}), AskUser},
		{"a key less", withArgs(map[string]any{"path": "/tmp/a", "opts": granted["opts"]}), AskUser},
		{"false as a string", withArgs(map[string]any{"path": "/tmp/a", "opts": granted["opts"], "force": "false"}), AskUser},
		{"no arguments", withArgs(nil), AskUser},
		{"the tool redefined", func() Call { c := withArgs(granted); c.Digest = "d2"; return c }(), AskUser},
		{"another server's tool of that name", func() Call { c := withArgs(granted); c.Server = "fs2"; return c }(), AskUser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := NewGate(Policy{Mode: Ask, Servers: []string{"fs", "fs2"}})
			if err := g.GrantArgs(withArgs(granted)); err != nil {
				t.Fatal(err)
			}
			if v := g.Decide(tt.c); v.Decision != tt.want {
				t.Fatalf("Decide = %+v, want %v", v, tt.want)
			}
		})
	}
}

func TestGrantArgsGoneWithRevokeAndToolChanged(t *testing.T) {
	t.Parallel()
	c := withArgs(map[string]any{"path": "/tmp/a"})
	g := NewGate(Policy{Mode: Ask})
	if err := g.GrantArgs(c); err != nil {
		t.Fatal(err)
	}
	if got := g.ToolChanged(c.Name, "d1"); got != nil {
		t.Errorf("ToolChanged with the same digest dropped %v", got)
	}
	if got := g.ToolChanged(c.Name, "d2"); len(got) != 1 || got[0] != c.Name {
		t.Errorf("ToolChanged to another digest dropped %v, want [%s]", got, c.Name)
	}
	if v := g.Decide(c); v.Decision != AskUser {
		t.Errorf("after the tool changed back: %+v, want asked", v)
	}
	if err := g.GrantArgs(c); err != nil {
		t.Fatal(err)
	}
	if !g.Revoke(c.Name) {
		t.Error("Revoke found no grant")
	}
	if v := g.Decide(c); v.Decision != AskUser {
		t.Errorf("after /revoke: %+v, want asked", v)
	}
}

func TestCanonicalArgs(t *testing.T) {
	t.Parallel()
	same := [][2]map[string]any{
		{{"a": 1.0, "b": "x"}, {"b": "x", "a": float64(1)}},
		{{"n": 1}, {"n": 1.0}}, // the same JSON is sent for both
		// A number is its value, however it is written: 1 and 1.0 are
		// one call, as the float64 they used to be read as made them.
		{{"a": json.Number("1")}, {"a": json.Number("1.0")}},
		{{"a": json.Number("10e-1")}, {"a": 1.0}},
		{{"a": json.Number("9007199254740992")}, {"a": float64(9007199254740992)}},
		{{"a": json.Number("1.5E+3")}, {"a": 1500}},
		{{"a": json.Number("0.000")}, {"a": json.Number("0e7")}},
	}
	for _, p := range same {
		a, okA := CanonicalArgs(p[0])
		b, okB := CanonicalArgs(p[1])
		if !okA || !okB || a != b {
			t.Errorf("%v and %v: %q, %q; want the same form", p[0], p[1], a, b)
		}
	}
	differ := [][2]map[string]any{
		{{"a": "1"}, {"a": 1.0}},
		{{"a": nil}, {"a": "null"}},
		{{"a": nil}, {}},
		{{"a": true}, {"a": "true"}},
		{{"a": []any{}}, {"a": map[string]any{}}},
		// Past 2^53 a float64 would round both to one value: exact, they
		// are two calls.
		{{"a": json.Number("9007199254740993")}, {"a": json.Number("9007199254740992")}},
		{{"a": json.Number("9007199254740993")}, {"a": float64(9007199254740992)}},
		{{"a": json.Number("1234567890123456789")}, {"a": json.Number("1234567890123456768")}},
		{{"a": json.Number("0.1")}, {"a": json.Number("0.10000000000000001")}},
		{{"a": json.Number("1e400")}, {"a": json.Number("1e401")}},
		{{"a": json.Number("-0")}, {"a": json.Number("0")}},
		{{"a,b": "c"}, {"a": "b,c"}},
		{{"a": `x","b":"y`}, {"a": "x", "b": "y"}},
		{{"a": 9007199254740993}, {"a": 9007199254740992}},
	}
	for _, p := range differ {
		a, okA := CanonicalArgs(p[0])
		b, okB := CanonicalArgs(p[1])
		if !okA || !okB || a == b {
			t.Errorf("%v and %v: %q, %q; want two forms", p[0], p[1], a, b)
		}
	}
	for _, bad := range []map[string]any{
		{"a": "\xff"}, {"\xfe": 1.0}, {"a": math.NaN()}, {"a": math.Inf(1)}, {"a": struct{}{}},
		{"a": json.Number("x")}, {"a": json.Number("01")}, {"a": json.Number("1.")}, {"a": json.Number("+1")},
		{"a": json.Number("1e")}, {"a": json.Number(" 1")}, {"a": json.Number("1e99999999999999999999")},
	} {
		if s, ok := CanonicalArgs(bad); ok {
			t.Errorf("%v has the form %q; want none", bad, s)
		}
	}
	g := NewGate(Policy{Mode: Ask})
	if err := g.GrantArgs(withArgs(map[string]any{"a": "\xff"})); err == nil {
		t.Error("GrantArgs granted arguments with no exact form")
	}
	if v := g.Decide(withArgs(map[string]any{"a": "\xfe"})); v.Decision != AskUser {
		t.Errorf("invalid text: %+v, want asked", v)
	}
}

func TestApproveArgsExactServer(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{ExactArgs: []string{"fs"}})
	if !g.ApprovesExactArgs("fs") || g.ApprovesExactArgs("git") || g.ApprovesExactArgs("") {
		t.Error("ApprovesExactArgs should hold for fs only")
	}
}
