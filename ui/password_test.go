package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestPermissionBoxShowsWhatIsSent: after a form whose password fields
// held the server's own values (its default, a word it asked for) and one
// the person typed, the permission box of a destructive call shows the
// server's values exactly as they will be sent, and says where the
// person's password is — never an anonymous "[redacted]".
func TestPermissionBoxShowsWhatIsSent(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	vault, got := mcptestutil.PasswordServer()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261201-120000-abcdef", Policy: permissions.Policy{Mode: permissions.Ask,
			ServerAllow: map[string][]string{"vault": {"sign_in"}}, Servers: []string{"vault"}},
		Servers: []session.ServerConfig{{Name: "vault", Transport: "inprocess", InProcess: vault}}})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 })

	const typed = "hunter2-vault-77"
	note := "word " + mcptestutil.PasswordWord + ", code " + typed
	ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_in", "vault__sign_in")}},
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_dg", "vault__danger", "path", mcptestutil.PasswordDefault, "note", note)}},
		ollamatest.TextTurn("Done."))
	h.typeText("sign in and fix it")
	h.key(tea.KeyEnter)
	h.until(func() bool { return len(m.forms) > 0 })
	ev := m.forms[0].ev
	content := map[string]any{"pin": mcptestutil.PasswordDefault, "word": mcptestutil.PasswordWord, "code": typed}
	if err := sess.AnswerElicitation(ev.ID, session.ElicitAccept, content); err != nil {
		t.Fatal(err)
	}
	h.until(func() bool { return m.modal != nil })
	box := strings.Join(strings.Fields(m.View()), " ")
	for _, want := range []string{`"path": "/etc/DIRECT"`, "word " + mcptestutil.PasswordWord,
		"code «your password for vault's form field code»"} {
		if !strings.Contains(box, want) {
			t.Errorf("the permission box lacks %q:\n%s", want, m.View())
		}
	}
	if strings.Contains(box, "[redacted]") || strings.Contains(box, typed) {
		t.Errorf("the permission box hides a value anonymously, or shows the password:\n%s", m.View())
	}
	if !sess.AnswerAsk("call_dg", session.AnswerYes) {
		t.Fatal("no call waits for an answer")
	}
	h.untilTurnDone()
	if g := got(); len(g) != 1 || g[0]["path"] != mcptestutil.PasswordDefault || g[0]["note"] != note {
		t.Errorf("the server received %v", g)
	}
}
