package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// savedHarness is toolHarness with saved grants kept in grantsFile: each
// one is a new session, as a new latch process would make it.
func savedHarness(t *testing.T, mode permissions.Mode, grantsFile string) (*harness, *toolServer) {
	t.Helper()
	h, w := toolHarnessWith(t, session.Options{Policy: permissions.Policy{Mode: mode}, GrantsFile: grantsFile})
	h.until(func() bool { tools, _ := h.sess.Tools(""); return len(tools) > 0 })
	return h, w
}

// flatText is allText with every run of spaces and line breaks made one
// space: notices wrap long paths.
func flatText(m *Model) string { return strings.Join(strings.Fields(allText(m)), " ") }

// savedNames lists the saved grants on the allow-list.
func savedNames(h *harness) []string {
	var out []string
	for _, e := range h.sess.AllowList() {
		if e.Source == permissions.FromSaved {
			out = append(out, e.Name)
		}
	}
	return out
}

func TestModalCapitalASavesTheGrant(t *testing.T) {
	file := filepath.Join(t.TempDir(), "latch", "grants.json")
	h, w := savedHarness(t, permissions.Ask, file)
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_s1", "notes__write_note", "text", "one")}},
		ollamatest.TextTurn("Written, and allowed always."),
	)
	h.typeText("write one")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	if !strings.Contains(h.m.View(), "A allow always") {
		t.Fatalf("the ask box does not offer A:\n%s", h.m.View())
	}
	// Typed a moment after the box opened: too soon to be an answer.
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'A'}})
	if h.m.modal == nil {
		t.Fatal("A answered the box inside its guard")
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("A inside the guard saved a grant")
	}
	pastGuard(h.m)
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'A'}})
	// A shows what it saves and where before anything is written.
	pastGuard(h.m)
	if v := h.m.View(); !strings.Contains(v, "› allow notes__write_note with any arguments") || !strings.Contains(v, "saved in "+file) {
		t.Fatalf("A does not show the grant and its file:\n%s", v)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatal("A saved a grant before Enter")
	}
	h.m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	h.untilTurnDone()
	if w.count() != 1 {
		t.Fatalf("A: %d runs", w.count())
	}
	if got := savedNames(h); !slices.Equal(got, []string{"notes__write_note"}) {
		t.Fatalf("saved grants %v", got)
	}
	if raw, err := os.ReadFile(file); err != nil || !strings.Contains(string(raw), `"write_note"`) {
		t.Fatalf("grants file: %v\n%s", err, raw)
	}
	if v := allText(h.m); !strings.Contains(v, "allowed always") {
		t.Errorf("no notice that the tool is allowed always:\n%s", v)
	}

	// A new latch on the same file runs the tool without asking.
	h2, w2 := savedHarness(t, permissions.Ask, file)
	h2.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_s2", "notes__write_note", "text", "two")}},
		ollamatest.TextTurn("Written without asking."),
	)
	h2.typeText("write two")
	h2.key(tea.KeyEnter)
	h2.untilTurnDone()
	if w2.count() != 1 || h2.m.modal != nil {
		t.Fatalf("the saved grant did not apply: %d runs, modal %v", w2.count(), h2.m.modal != nil)
	}
}

func TestModalLowercaseADoesNotSave(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grants.json")
	h, w := savedHarness(t, permissions.Ask, file)
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_l1", "notes__write_note", "text", "one")}},
		ollamatest.TextTurn("Written."),
	)
	h.typeText("write one")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'a'}})
	h.untilTurnDone()
	if w.count() != 1 {
		t.Fatalf("a: %d runs", w.count())
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("a (for the session) wrote the grants file")
	}
	if got := savedNames(h); len(got) != 0 {
		t.Errorf("saved grants %v after a", got)
	}
}

func TestAllowAlwaysCommandAndListing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grants.json")
	h, _ := savedHarness(t, permissions.ReadOnly, file)
	h.command("/allow notes__write_note --always")
	v := flatText(h.m)
	if !strings.Contains(v, "notes__write_note is allowed always") || !strings.Contains(v, file) {
		t.Fatalf("/allow --always:\n%s", v)
	}
	if got := savedNames(h); !slices.Equal(got, []string{"notes__write_note"}) {
		t.Fatalf("saved grants %v", got)
	}
	h.command("/allow")
	v = flatText(h.m)
	if !strings.Contains(v, "saved grant ("+file+")") || !strings.Contains(v, "/revoke NAME") {
		t.Fatalf("/allow does not list the saved grant and its file:\n%s", v)
	}
	h.command("/allow notes__nope --always")
	if v := flatText(h.m); !strings.Contains(v, `no tool "notes__nope"`) {
		t.Fatalf("/allow of an unknown tool --always:\n%s", v)
	}
}

func TestRevokeCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grants.json")
	h, _ := savedHarness(t, permissions.ReadOnly, file)
	h.command("/allow notes__write_note --always")
	h.command("/allow notes__read_note")
	h.command("/revoke notes__write_note")
	v := flatText(h.m)
	if !strings.Contains(v, "removed the saved grant for notes__write_note (from "+file+")") {
		t.Fatalf("/revoke of a saved grant:\n%s", v)
	}
	if got := savedNames(h); len(got) != 0 {
		t.Errorf("saved grants %v after /revoke", got)
	}
	if raw, _ := os.ReadFile(file); strings.Contains(string(raw), "write_note") {
		t.Errorf("the grants file still holds it:\n%s", raw)
	}
	h.command("/revoke notes__read_note")
	if v := flatText(h.m); !strings.Contains(v, "removed the session grant for notes__read_note") {
		t.Fatalf("/revoke of a session grant:\n%s", v)
	}
	h.command("/revoke notes__read_note")
	if v := flatText(h.m); !strings.Contains(v, "/revoke: notes__read_note has no saved or session grant") {
		t.Fatalf("/revoke with nothing to remove:\n%s", v)
	}
}
