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
