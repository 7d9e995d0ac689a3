package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/eventtest"
)

// TestPrintEveryField runs -p's printer, plain and --json, over a turn with
// the plant in one field of one event type at a time: neither stdout nor
// stderr may hold a control character of it.
func TestPrintEveryField(t *testing.T) {
	plant := mcptestutil.Plant("PLANTED-WORD")
	combos := 0
	for _, typ := range session.EventTypes() {
		for _, f := range eventtest.Fields(typ) {
			for _, asJSON := range []bool{false, true} {
				var out, errOut bytes.Buffer
				p := newPrinter("20261201-000000-abcdef", asJSON, &out, &errOut)
				evs := eventtest.PlantIn(eventtest.Scenario(), typ, f, plant)
				evs = append(evs, &session.TurnDone{Turn: 1, Reason: session.ReasonStop})
				for _, e := range evs {
					if _, isAsk := e.(*session.PermissionEvent); isAsk && e.(*session.PermissionEvent).Decision == "asked" {
						continue
					}
					if _, isParked := e.(*session.ApprovalParkedEvent); isParked {
						// Parking ends a -p run; print it last, below.
						continue
					}
					p.event(e)
				}
				for _, e := range evs {
					if _, isParked := e.(*session.ApprovalParkedEvent); isParked {
						p.event(e)
					}
				}
				for name, s := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
					if bad := mcptestutil.FirstForbidden(s); bad != "" {
						t.Errorf("%s.%s (json %v): %q on %s: %q", typ, f, asJSON, bad, name, s)
					}
					combos++
				}
			}
		}
	}
	t.Logf("%d (event type, field, -p surface) checks: stdout and stderr, plain and --json", combos)
}

// TestSessionsListOfEditedLog: `latch sessions` over a log whose pending
// approval, model and first prompt were edited to hold escapes, and a
// file whose name is not a session id.
func TestSessionsListOfEditedLog(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "latch", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	plant := mcptestutil.Plant("PLANTED-WORD")
	evs := eventtest.Scenario()
	for _, at := range [][2]string{{session.TypeApprovalParked, "ApprovalID"}, {session.TypeSessionStarted, "Model"},
		{session.TypeUserMessage, "Text"}} {
		evs = eventtest.PlantIn(evs, at[0], at[1], plant)
	}
	for _, name := range []string{"20261201-000000-edited.jsonl", "\x1b]0;pwned\x07.jsonl"} {
		eventtest.WriteEditedLog(t, filepath.Join(dir, name), evs)
	}
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		switch k {
		case "XDG_STATE_HOME":
			return state
		case "XDG_CONFIG_HOME", "HOME":
			return t.TempDir()
		}
		return ""
	}
	if code := run([]string{"sessions"}, nil, &out, &errOut, getenv); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if bad := mcptestutil.FirstForbidden(out.String() + errOut.String()); bad != "" {
		t.Fatalf("%q in latch sessions:\n%q", bad, out.String())
	}
	if !strings.Contains(out.String(), "20261201-000000-edited") || strings.Count(out.String(), "PLANT") < 2 {
		t.Fatalf("the edited session is not listed:\n%s", out.String())
	}
	if rows := strings.Count(out.String(), "\n"); rows != 2 {
		t.Fatalf("a file that is not a session log is listed:\n%s", out.String())
	}
}

// TestResumeTakesOnlySessionIDs: --resume names a session, never a path.
func TestResumeTakesOnlySessionIDs(t *testing.T) {
	for _, id := range []string{"../../x", "/etc/passwd", "a/b", "..", "-x", "x\x1b[2J", strings.Repeat("a", 65)} {
		var out, errOut bytes.Buffer
		code := run([]string{"--resume", id, "-p", ""}, nil, &out, &errOut, func(string) string { return "" })
		if code != exitUsage || !strings.Contains(errOut.String(), "not a session id") {
			t.Errorf("--resume %q: exit %d, %q", id, code, errOut.String())
		}
		if bad := mcptestutil.FirstForbidden(errOut.String()); bad != "" {
			t.Errorf("--resume %q: %q echoed", id, bad)
		}
		if _, _, err := session.Resume(session.Options{}, t.TempDir(), id); err == nil || !strings.Contains(err.Error(), "not a session id") {
			t.Errorf("session.Resume(%q): %v", id, err)
		}
	}
}

// TestConfigErrorsSanitized: a config file whose keys and values hold
// escapes gets its errors on stderr with none of them.
func TestConfigErrorsSanitized(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	body := `{"mcpServers": {"fs": {"command": "x", "\u001b]52;c;cm0K\u0007": 1, "mode": "\u001b[2J\u009b"}}, "theme\u202e": 1}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"--config", path, "-p", "hi"}, nil, &out, &errOut, func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	})
	if code != exitUsage {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if bad := mcptestutil.FirstForbidden(errOut.String()); bad != "" {
		t.Fatalf("%q on stderr: %q", bad, errOut.String())
	}
	if !strings.Contains(errOut.String(), "]52;c;cm0K") {
		t.Fatalf("the error does not show what was wrong: %q", errOut.String())
	}
}
