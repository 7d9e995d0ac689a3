package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"latch/session"
)

// TestCardNamesTheRule: a call an argument rule allowed says which rule on
// its card; a call a rule denied says it in its reason.
func TestCardNamesTheRule(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	hd := session.Header{}
	fh.m.replaying = true // no modal opens
	fh.feed(&session.UserMessage{Header: hd, Turn: 1, Text: "read"},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__read_text_file",
			Arguments: map[string]any{"path": "/p/a"}},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "c1", Tool: "fs__read_text_file", Decision: "allowed", By: "policy",
			Rule: `config c.json: server "fs": rules[0]`},
		&session.ToolResultEvent{Header: hd, Turn: 1, CallID: "c1", Tool: "fs__read_text_file", OK: true, Preview: "x", Size: 1},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "c2", Server: "fs", Tool: "fs__read_text_file",
			Arguments: map[string]any{"path": "~/.ssh/id"}},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "c2", Tool: "fs__read_text_file", Decision: "denied", By: "policy",
			Reason: "fs__read_text_file with these arguments is denied by rule *(*=~/.ssh/**) (--deny)", Rule: "--deny"})
	fh.m.replaying = false
	screen := ansi.Strip(fh.m.View())
	if !strings.Contains(screen, `by rule: config c.json: server "fs": rules[0]`) {
		t.Errorf("the allowed card does not name its rule:\n%s", screen)
	}
	if !strings.Contains(screen, "denied by rule *(*=~/.ssh/**)") || strings.Contains(screen, "by rule: --deny") {
		t.Errorf("the denied card should name its rule once, in its reason:\n%s", screen)
	}
}

// TestWhyExplainsADecision: /why CALL_ID says what the gate decided on
// that call, why, and the rule; /why alone explains the last call.
func TestWhyExplainsADecision(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	hd := session.Header{}
	fh.m.replaying = true
	fh.feed(&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__read_text_file"},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "c1", Tool: "fs__read_text_file", Decision: "allowed", By: "policy",
			Reason: "allowed by rule fs: read_text_file(path=/p/**)", Rule: `config c.json: server "fs": rules[0]`},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "c2", Server: "fs", Tool: "fs__write_file"},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "c2", Tool: "fs__write_file", Decision: "denied", By: "policy",
			Reason: "fs__write_file is not allow-listed and fs is in read_only mode"})
	fh.m.replaying = false
	notice := func() string {
		for i := len(fh.m.chat.entries) - 1; i >= 0; i-- {
			if e := fh.m.chat.entries[i]; e.kind == noticeEntry || e.kind == errorEntry {
				return e.text
			}
		}
		return ""
	}
	fh.send("/why c1")
	if n := notice(); !strings.Contains(n, "c1 fs__read_text_file: allowed by policy") ||
		!strings.Contains(n, "allowed by rule fs: read_text_file") || !strings.Contains(n, `rule: config c.json: server "fs": rules[0]`) {
		t.Errorf("/why c1 said %q", n)
	}
	fh.send("/why")
	if n := notice(); !strings.Contains(n, "c2 fs__write_file: denied by policy") || !strings.Contains(n, "read_only mode") {
		t.Errorf("/why said %q, want the last call explained", n)
	}
	fh.send("/why nope")
	if n := notice(); !strings.Contains(n, "no decided call") {
		t.Errorf("/why nope said %q", n)
	}
}
