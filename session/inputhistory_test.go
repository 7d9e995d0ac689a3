package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// TestHistoryRedactsCredentials: a message holding a password the person
// typed into a server's form is written to the history with it hidden,
// as the session log has it.
func TestHistoryRedactsCredentials(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	ol := newServer(t, toolsModel)
	cfg := deskServer("", "https://example.com")
	s := newSession(t, ol, session.Options{Model: toolsModel.Name, LogDir: t.TempDir(), HistoryFile: file,
		Servers: []session.ServerConfig{cfg}, Policy: permissions.Policy{Mode: permissions.Auto}})
	h := &elicitHarness{t: t, s: s, ol: ol, r: newReader(t, s)}
	s.StartServers()
	s.WaitServers(bounded(t))
	mcptestutil.WaitFor(t, timeout, "desk connected", func() bool {
		st := s.Servers()
		return len(st) == 1 && st[0].State == session.StateConnected
	})
	ev := h.request(h.call("desk__fill_form"))
	content := mcp.FormDefaults(ev.Fields)
	content["name"], content["email"], content["pin"] = "Ada", "ada@example.com", "s3cr3t-pin-4711"
	if err := s.AnswerElicitation(ev.ID, session.ElicitAccept, content); err != nil {
		t.Fatal(err)
	}
	h.result()
	if err := s.Remember("my pin is s3cr3t-pin-4711, remember it"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), "s3cr3t-pin-4711") || !strings.Contains(string(data), "my pin is") {
		t.Fatalf("the history file:\n%s", data)
	}
}
