package session_test

import (
	"strings"
	"testing"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/session"
)

// TestServerChosenValueNeverHidden: a server's form has password fields
// whose values come from the server (a default, a word its message asks
// for) and one the person types. Only the person's own value becomes a
// secret: a later call's arguments holding the server's values are shown
// and logged exactly as sent, and the person's value is named, not
// blanked, where it appears.
func TestServerChosenValueNeverHidden(t *testing.T) {
	srv, got := mcptestutil.PasswordServer()
	h := newElicitHarness(t, session.ServerConfig{Name: "vault", Transport: mcp.TransportInProcess, InProcess: srv}, false)
	const typed = "hunter2-vault-77"
	ev := h.request(h.call("vault__sign_in"))
	content := mcp.FormDefaults(ev.Fields) // the pin left at the server's default
	content["word"], content["code"] = mcptestutil.PasswordWord, typed
	if content["pin"] != mcptestutil.PasswordDefault {
		t.Fatalf("the form's defaults: %v", content)
	}
	if err := h.s.AnswerElicitation(ev.ID, session.ElicitAccept, content); err != nil {
		t.Fatal(err)
	}
	h.result()

	note := "word " + mcptestutil.PasswordWord + ", code " + typed
	evs := h.call("vault__danger", "path", mcptestutil.PasswordDefault, "note", note)
	call := one[*session.ToolCallEvent](t, evs)
	label := "«your password for vault's form field code»"
	wantNote := "word " + mcptestutil.PasswordWord + ", code " + label
	if call.Arguments["path"] != mcptestutil.PasswordDefault || call.Arguments["note"] != wantNote {
		t.Errorf("the call as shown: %v\nwant path %q, note %q", call.Arguments, mcptestutil.PasswordDefault, wantNote)
	}
	if g := got(); len(g) != 1 || g[0]["path"] != mcptestutil.PasswordDefault || g[0]["note"] != note {
		t.Errorf("the server received %v", g)
	}
	// The tool_call record is what the log says was asked and run; the
	// model's own message, which echoed the password into its call, keeps
	// it nowhere either.
	log := h.log()
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, typed) {
			t.Errorf("the log keeps the password the person typed: %s", line)
		}
	}
	for _, line := range strings.Split(h.log(), "\n") {
		if !strings.Contains(line, `"type":"tool_call"`) || !strings.Contains(line, "danger") {
			continue
		}
		if !strings.Contains(line, `"path":"/etc/DIRECT"`) || !strings.Contains(line, label) || strings.Contains(line, typed) {
			t.Errorf("the log's tool_call: %s", line)
		}
	}
}
