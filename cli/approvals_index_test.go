package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/config"
	"latch/mcp/mcptestutil"
	"latch/parkindex"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// approvalsOn runs latch approvals on the state folder dir and returns
// its stdout and stderr.
func approvalsOn(t *testing.T, dir string) (string, string) {
	t.Helper()
	s := &settings{cfg: &config.Config{}, mode: "ask", stateDir: dir, getenv: func(string) string { return "" }}
	var out, errb bytes.Buffer
	if code := listApprovals(s, false, 0, time.Now(), &out, &errb); code != exitOK {
		t.Fatalf("latch approvals: exit %d, %s", code, errb.String())
	}
	return out.String(), errb.String()
}

// latch approvals with no state folder yet says no call waits, and makes
// neither the folder nor an index.
func TestApprovalsWithoutStateFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	out, errs := approvalsOn(t, dir)
	if !strings.Contains(out, "no call waits") || errs != "" {
		t.Errorf("stdout %q, stderr %q", out, errs)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("latch approvals made the state folder")
	}
}

// latch approvals on an index that is corrupt lists the calls all the
// same (the index set aside and built again from the log), and says so on
// stderr once: the next run says nothing.
func TestApprovalsMendsACorruptIndex(t *testing.T) {
	dir := t.TempDir()
	sess := parkingSession(t, dir)
	parked := sess.GatewayCall(context.Background(), session.GatewayCall{Client: "ci", Name: "notes__write_note",
		Arguments: map[string]any{"text": "\x1b[31mred"}})
	if parked.Decision != session.GatewayParked {
		t.Fatalf("the call did not park: %+v", parked)
	}
	if err := os.WriteFile(filepath.Join(dir, parkindex.FileName), []byte(strings.Repeat("garbage ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs := approvalsOn(t, dir)
	if !strings.Contains(out, parked.ID) || strings.Contains(out, "\x1b") {
		t.Errorf("latch approvals does not list the call, or lets its escape through:\n%q", out)
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "was corrupt") {
		t.Errorf("stderr %q: want one line that the index was corrupt", errs)
	}
	if out, errs = approvalsOn(t, dir); !strings.Contains(out, parked.ID) || errs != "" {
		t.Errorf("the next run: stdout %q, stderr %q", out, errs)
	}
}

// parkingSession is a session in approve mode on the state folder dir,
// as latch serve runs it, with a notes server (write_note), its tools
// listed.
func parkingSession(t *testing.T, dir string) *session.Session {
	t.Helper()
	srv := mcpserver.NewMCPServer("notes", "1.0", mcpserver.WithToolCapabilities(true))
	srv.AddTool(mcpgo.NewTool("write_note", mcpgo.WithString("text", mcpgo.Required())),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("saved"), nil
		})
	ol := ollamatest.New(ollamatest.Model{Name: "tiny"})
	t.Cleanup(ol.Close)
	u, _ := url.Parse(ol.URL)
	sess := session.New(session.Options{Model: "tiny", Client: ol.Client(), Host: ol.Host(), Raw: session.RawOllama{URL: u, HTTP: ol.HTTPClient()},
		LogDir: dir, NonInteractive: true, Policy: permissions.Policy{Mode: permissions.Approve},
		Servers: []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(sess.Close)
	sess.StartServers()
	mcptestutil.WaitFor(t, time.Minute, "the notes server's tools", func() bool {
		tools, err := sess.Tools("")
		return err == nil && len(tools) > 0
	})
	return sess
}

// latch inbox's Source on the index is read from Bubble Tea's goroutines:
// reads at once from many take turns (go test -race finds it otherwise)
// and each sees the waiting call.
func TestInboxSourceReadsTakeTurns(t *testing.T) {
	dir := t.TempDir()
	sess := parkingSession(t, dir)
	if out := sess.GatewayCall(context.Background(), session.GatewayCall{Client: "ci", Name: "notes__write_note",
		Arguments: map[string]any{"text": "turns"}}); out.Decision != session.GatewayParked {
		t.Fatalf("the call did not park: %+v", out)
	}
	var stderr bytes.Buffer
	src, _, closeSrc := inboxSource(dir, &stderr)
	defer closeSrc()
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			calls, err := src()
			if err == nil && len(calls) != 1 {
				err = fmt.Errorf("%d calls, want 1", len(calls))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("the index was not used: %s", stderr.String())
	}
}
