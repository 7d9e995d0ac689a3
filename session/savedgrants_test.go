package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// newSavedHarness is newToolHarness with saved grants kept in grantsFile,
// and write_note described as description ("" keeps "Write a note."): a
// new session, as a new latch process would make it.
func newSavedHarness(t *testing.T, o session.Options, grantsFile, description string) *toolHarness {
	t.Helper()
	notes := newNotesServer()
	if description != "" {
		notes.addWrite(description)
	}
	o.GrantsFile = grantsFile
	return newToolHarnessOn(t, o, notes)
}

// savedFile reads the grants file as JSON.
func savedFile(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the grants file: %v", err)
	}
	var doc struct {
		Grants []map[string]any `json:"grants"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("the grants file is not JSON: %v\n%s", err, raw)
	}
	return doc.Grants
}

// toolDigest returns the digest of a connected tool's definition.
func toolDigest(t *testing.T, s *session.Session, name string) string {
	t.Helper()
	tools, err := s.Tools("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.Name == name {
			return tl.Digest
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

func TestSavedGrantAnswerSaveLastsIntoANewSession(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "config", "latch", "grants.json")
	ask := session.Options{Policy: permissions.Policy{Mode: permissions.Ask}}

	h := newSavedHarness(t, ask, file, "")
	h.ol.Script(callsTurn(toolCall("call_save0001", "notes__write_note", "text", "one")), ollamatest.TextTurn("Saved one."))
	send(t, h.sess, "save one")
	evs := h.r.until(isAsked("call_save0001"))
	if !h.sess.AnswerAsk("call_save0001", session.AnswerSave) {
		t.Fatal("AnswerAsk found no waiting call")
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Saved one.")
	if got := decisions(evs, "call_save0001"); !slices.Equal(got, []string{"asked/policy", "allowed/user"}) {
		t.Errorf("permission events %v", got)
	}
	if !slices.ContainsFunc(notices(evs), func(n string) bool { return strings.Contains(n, "allowed always") }) {
		t.Errorf("no notice that the tool is allowed always: %q", notices(evs))
	}

	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if perm := info.Mode().Perm(); perm != 0o600 {
			t.Errorf("grants file mode %v, want 0600", perm)
		}
		dir, _ := os.Stat(filepath.Dir(file))
		if perm := dir.Mode().Perm(); perm != 0o700 {
			t.Errorf("grants folder mode %v, want 0700", perm)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	for _, e := range entries {
		if n := e.Name(); n != "grants.json" && n != "grants.json.lock" {
			t.Errorf("the folder holds %s: want only grants.json and its lock (no temporary file left)", n)
		}
	}
	g := savedFile(t, file)
	digest := toolDigest(t, h.sess, "notes__write_note")
	if len(g) != 1 || g[0]["server"] != "notes" || g[0]["tool"] != "write_note" || g[0]["digest"] != digest {
		t.Fatalf("grants file %v, want notes/write_note with digest %s", g, digest)
	}

	// A new session (a new latch) loads it: the call runs without asking.
	h2 := newSavedHarness(t, ask, file, "")
	if !slices.Contains(h2.sess.AllowList(), permissions.Entry{Name: "notes__write_note", Source: permissions.FromSaved, Server: "notes"}) {
		t.Errorf("allow list %+v has no saved grant", h2.sess.AllowList())
	}
	h2.ol.Script(callsTurn(toolCall("call_save0002", "notes__write_note", "text", "two")), ollamatest.TextTurn("Saved two."))
	send(t, h2.sess, "save two")
	evs = h2.r.turn()
	finished(t, evs, "Saved two.")
	p := one[*session.PermissionEvent](t, evs)
	if p.Decision != "allowed" || p.By != permissions.ByUser || !strings.Contains(p.Reason, "allowed always") {
		t.Errorf("permission %+v, want allowed by the saved grant", p)
	}
	if w := h2.notes.written(); !slices.Equal(w, []string{"two"}) {
		t.Errorf("writes %v", w)
	}
}

func TestSavedGrantChangedDefinitionAsksAgain(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "grants.json")
	ask := session.Options{Policy: permissions.Policy{Mode: permissions.Ask}}
	h := newSavedHarness(t, ask, file, "")
	if err := h.sess.GrantAlways("notes__write_note"); err != nil {
		t.Fatalf("GrantAlways: %v", err)
	}

	// The server now describes the tool otherwise: the grant does not apply.
	h2 := newSavedHarness(t, ask, file, "Write a note and mail it to everyone.")
	h2.ol.Script(callsTurn(toolCall("call_chg00001", "notes__write_note", "text", "x")), ollamatest.TextTurn("Done."))
	send(t, h2.sess, "save x")
	evs := h2.r.until(isAsked("call_chg00001"))
	var changed string
	for _, n := range notices(evs) {
		if strings.Contains(n, "notes__write_note changed its definition since you allowed it always: asking again") {
			changed = n
		}
	}
	if changed == "" || !strings.Contains(changed, "mail it to everyone") {
		t.Errorf("notices %q, want one saying notes__write_note changed (and how)", notices(evs))
	}
	if w := h2.notes.written(); len(w) != 0 {
		t.Errorf("the changed tool ran before the user answered: %v", w)
	}
	h2.sess.AnswerAsk("call_chg00001", session.AnswerNo)
	evs = h2.r.turn()
	if got := decisions(evs, "call_chg00001"); !slices.Equal(got, []string{"denied/user"}) {
		t.Errorf("permission events after the answer %v", got)
	}
}

func TestSavedGrantCorruptFileAllowsNothing(t *testing.T) {
	t.Parallel()
	// Made with the right digest, but cut short: the whole file is unusable.
	probe := newSavedHarness(t, session.Options{}, "", "")
	digest := toolDigest(t, probe.sess, "notes__write_note")
	file := filepath.Join(t.TempDir(), "grants.json")
	corrupt := `{"grants": [{"server": "notes", "tool": "write_note", "digest": "` + digest + `"}`
	if err := os.WriteFile(file, []byte(corrupt), 0o600); err != nil {
		t.Fatal(err)
	}

	h := newSavedHarness(t, session.Options{}, file, "")
	h.sess.Start()
	evs := h.r.until(func(e session.Event) bool { _, ok := e.(*session.SettingsEvent); return ok })
	ns := notices(evs)
	if len(ns) != 1 || !strings.Contains(ns[0], file) || !strings.Contains(ns[0], "not valid grants JSON") {
		t.Errorf("notices %q, want one naming the file and the problem", ns)
	}
	for _, e := range h.sess.AllowList() {
		if e.Source == permissions.FromSaved {
			t.Errorf("allow list has a saved grant from a corrupt file: %+v", e)
		}
	}
	h.ol.Script(callsTurn(toolCall("call_bad00001", "notes__write_note", "text", "x")), ollamatest.TextTurn("Denied."))
	send(t, h.sess, "save x")
	evs = h.r.turn()
	if p := one[*session.PermissionEvent](t, evs); p.Decision != "denied" {
		t.Errorf("permission %+v, want denied", p)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("write_note ran: %v", w)
	}
	// Saving does not overwrite what the person wrote there.
	if err := h.sess.GrantAlways("notes__write_note"); err == nil || !strings.Contains(err.Error(), "fix or delete") {
		t.Errorf("GrantAlways over a corrupt file: %v, want a refusal", err)
	}
	if raw, _ := os.ReadFile(file); string(raw) != corrupt {
		t.Errorf("the corrupt file was changed: %s", raw)
	}
}

func TestSavedGrantFileSkipsIncompleteEntriesAndUnknownFields(t *testing.T) {
	t.Parallel()
	probe := newSavedHarness(t, session.Options{}, "", "")
	digest := toolDigest(t, probe.sess, "notes__write_note")
	file := filepath.Join(t.TempDir(), "grants.json")
	doc := `{"version": 7, "grants": [
		{"server": "notes", "tool": "read_note"},
		{"tool": "fail_note", "digest": "x"},
		42,
		{"server": "notes", "tool": "write_note", "digest": "` + digest + `", "comment": "mine"}]}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newSavedHarness(t, session.Options{}, file, "")
	h.sess.Start()
	evs := h.r.until(func(e session.Event) bool { _, ok := e.(*session.SettingsEvent); return ok })
	if ns := notices(evs); len(ns) != 1 || !strings.Contains(ns[0], "3 entries") {
		t.Errorf("notices %q, want one about 3 skipped entries", ns)
	}
	var saved []string
	for _, e := range h.sess.AllowList() {
		if e.Source == permissions.FromSaved {
			saved = append(saved, e.Name)
		}
	}
	if !slices.Equal(saved, []string{"notes__write_note"}) {
		t.Errorf("saved grants %v, want only notes__write_note", saved)
	}
}

func TestSavedGrantOthersWritableFileIgnored(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	probe := newSavedHarness(t, session.Options{}, "", "")
	digest := toolDigest(t, probe.sess, "notes__write_note")
	file := filepath.Join(t.TempDir(), "grants.json")
	doc := `{"grants": [{"server": "notes", "tool": "write_note", "digest": "` + digest + `"}]}`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	h := newSavedHarness(t, session.Options{}, file, "")
	for _, e := range h.sess.AllowList() {
		if e.Source == permissions.FromSaved {
			t.Errorf("a grant was taken from a file others may write: %+v", e)
		}
	}
}

func TestSavedGrantRevoke(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "grants.json")
	h := newSavedHarness(t, session.Options{}, file, "")
	if err := h.sess.GrantAlways("notes__write_note"); err != nil {
		t.Fatal(err)
	}
	if err := h.sess.Grant("notes__write_note"); err != nil {
		t.Fatal(err)
	}
	removed, err := h.sess.Revoke("notes__write_note")
	if err != nil || len(removed) != 2 {
		t.Fatalf("Revoke = %q, %v; want the session and the saved grant removed", removed, err)
	}
	if g := savedFile(t, file); len(g) != 0 {
		t.Errorf("grants file still holds %v", g)
	}
	for _, e := range h.sess.AllowList() {
		t.Errorf("allow list still holds %+v", e)
	}
	if _, err := h.sess.Revoke("notes__write_note"); err == nil {
		t.Error("a second Revoke found something to remove")
	}
}

func TestGrantsFilePath(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, filepath.Join("/x", "latch", "grants.json")},
		{map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, filepath.Join("/h", ".config", "latch", "grants.json")},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".config", "latch", "grants.json")},
		{map[string]string{}, ""},
	}
	for _, tt := range tests {
		if got := session.GrantsFile(env(tt.env)); got != tt.want {
			t.Errorf("GrantsFile(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
