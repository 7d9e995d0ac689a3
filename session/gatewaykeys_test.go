package session_test

import (
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
)

// Through the gateway, with a real MCP server behind it, a path can hide
// where a string-only gate never looked: as an object's key, at any depth,
// and a boolean rule is met by the spellings a lax validator reads as
// true. Each such call is refused before the server sees it; the same
// tool with a key that is a word, or with false, runs.
func TestGatewayPathsInKeysAndLaxValues(t *testing.T) {
	rule := func(spec permissions.RuleSpec, origin string) permissions.Rule {
		r, err := permissions.CompileRule(spec, "", origin, "/home/me")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{
		Home: "/home/me",
		Rules: []permissions.Rule{
			rule(permissions.RuleSpec{Tool: "*", Args: map[string]any{"*": "~/.ssh/**"}, Decision: "deny"}, "rules[0]"),
			rule(permissions.RuleSpec{Tool: "notes__write_note", Args: map[string]any{"force": true}, Decision: "deny"}, "rules[1]"),
		},
	}})
	h.sess.SetServerMode("notes", permissions.Auto)
	ctx := bounded(t)
	call := func(args map[string]any) session.GatewayOutcome {
		args["text"] = "hi"
		return h.sess.GatewayCall(ctx, session.GatewayCall{Client: "agent", Name: "notes__write_note", Arguments: args})
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		rule string
	}{
		{"a path as a key", map[string]any{"files": map[string]any{"~/.ssh/authorized_keys": "ssh-ed25519 AAAA"}}, "rules[0]"},
		{"a path as a nested key", map[string]any{"edits": []any{map[string]any{"to": map[string]any{"/home/me/.ssh/config": 1}}}}, "rules[0]"},
		{"true as a string", map[string]any{"force": "true"}, "rules[1]"},
		{"True", map[string]any{"force": "True"}, "rules[1]"},
		{"yes", map[string]any{"force": "yes"}, "rules[1]"},
		{"on", map[string]any{"force": "on"}, "rules[1]"},
		{"1", map[string]any{"force": 1}, "rules[1]"},
		{"\"1\"", map[string]any{"force": "1"}, "rules[1]"},
	} {
		if out := call(tc.args); out.Decision != session.GatewayDenied || !strings.Contains(out.Reason, tc.rule) {
			t.Errorf("%s: %+v, want denied by %s", tc.name, out, tc.rule)
		}
	}
	if n := len(h.notes.written()); n != 0 {
		t.Fatalf("the server ran %d refused calls", n)
	}
	for _, args := range []map[string]any{
		{"files": map[string]any{"notes.txt": "a word for a key"}},
		{"force": false},
		{"force": "false"},
	} {
		if out := call(args); out.Decision != session.GatewayAllowed {
			t.Errorf("%v: %+v, want it run", args, out)
		}
	}
	if n := len(h.notes.written()); n != 3 {
		t.Errorf("the server ran %d calls, want the 3 allowed", n)
	}
}
