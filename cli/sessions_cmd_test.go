package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/session"
)

// sessionsDir is a machine with a state folder; it returns latch's getenv
// and the sessions folder.
func sessionsDir(t *testing.T) (func(string) string, string) {
	t.Helper()
	root := t.TempDir()
	env := map[string]string{"HOME": root, "XDG_STATE_HOME": filepath.Join(root, "state")}
	dir := filepath.Join(root, "state", "latch", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return envOf(env), dir
}

// writeLog writes a session log of the given lines (JSON objects with
// their type and fields; the header is added), last written age ago.
func writeLog(t *testing.T, dir, id string, age time.Duration, lines ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(fmt.Sprintf(`{"type":"session_started","time":"2026-11-01T10:00:00Z","session_id":%q,"model":"qwen3:8b"}`+"\n", id))
	for _, l := range lines {
		b.WriteString(fmt.Sprintf(`{"time":"2026-11-01T10:00:01Z","session_id":%q,%s}`+"\n", id, l))
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-age)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// latchSessions runs `latch sessions ARGS`.
func latchSessions(t *testing.T, getenv func(string) string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"sessions"}, args...), strings.NewReader(""), &out, &errb, getenv)
	t.Logf("latch sessions %q → exit %d\nstdout: %s\nstderr: %s", args, code, out.String(), errb.String())
	return code, out.String(), errb.String()
}

// TestSessionsListShowsConversations: a session nobody wrote in is left
// out, and a session that was cleared shows the first prompt after the
// last /clear.
func TestSessionsListShowsConversations(t *testing.T) {
	getenv, dir := sessionsDir(t)
	writeLog(t, dir, "20261101-100000-empty0", time.Hour)
	writeLog(t, dir, "20261101-100000-clear0", time.Hour,
		`"type":"user_message","turn":1,"text":"the old question"`,
		`"type":"cleared"`,
		`"type":"user_message","turn":2,"text":"the new question"`,
		`"type":"user_message","turn":3,"text":"a follow-up"`)
	code, out, _ := latchSessions(t, getenv)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out, "empty0") {
		t.Errorf("the session without a message is listed:\n%s", out)
	}
	if !strings.Contains(out, "clear0") || !strings.Contains(out, "the new question") || strings.Contains(out, "the old question") {
		t.Errorf("want clear0 with the prompt after /clear:\n%s", out)
	}
}

// TestSessionsRemove: `latch sessions rm ID` deletes the log and its lock
// file; an unknown id says how to list them; a session another latch
// holds (its real lock) is refused and kept.
func TestSessionsRemove(t *testing.T) {
	getenv, dir := sessionsDir(t)
	writeLog(t, dir, "20261101-100000-gone00", time.Hour, `"type":"user_message","turn":1,"text":"hi"`)
	if err := os.WriteFile(filepath.Join(dir, "20261101-100000-gone00.lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	inbox := filepath.Join(dir, "inbox", "20261101-100000-gone00")
	if err := os.MkdirAll(inbox, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inbox, "gw_1.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := latchSessions(t, getenv, "rm", "20261101-100000-gone00"); code != exitOK || !strings.Contains(out, "removed session 20261101-100000-gone00") {
		t.Fatalf("rm: exit %d, %q", code, out)
	}
	for _, ext := range []string{".jsonl", ".lock"} {
		if _, err := os.Stat(filepath.Join(dir, "20261101-100000-gone00"+ext)); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", ext, err)
		}
	}
	if _, err := os.Stat(inbox); !os.IsNotExist(err) {
		t.Errorf("its decisions folder is still there: %v", err)
	}
	if code, _, errs := latchSessions(t, getenv, "rm", "20261101-100000-nosuch"); code != exitError ||
		!strings.Contains(errs, "no saved session 20261101-100000-nosuch (latch sessions lists them)") {
		t.Errorf("rm of an unknown id: exit %d, %q", code, errs)
	}

	const held = "20261101-100000-held00"
	s := session.New(session.Options{ID: held, LogDir: dir})
	s.Start()
	defer s.Close()
	code, _, errs := latchSessions(t, getenv, "rm", held)
	if code != exitError || !strings.Contains(errs, "is open in another latch") {
		t.Errorf("rm of a held session: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, held+".jsonl")); err != nil {
		t.Errorf("the held session's log: %v", err)
	}
}

// TestSessionsPrune: `latch sessions prune --older-than 30d` deletes the
// sessions idle for longer, keeps the newer ones and one another latch
// holds, and says how many of each; --dry-run deletes nothing.
func TestSessionsPrune(t *testing.T) {
	getenv, dir := sessionsDir(t)
	day := 24 * time.Hour
	writeLog(t, dir, "20261001-100000-old000", 40*day, `"type":"user_message","turn":1,"text":"hi"`)
	writeLog(t, dir, "20261001-100000-old001", 31*day)
	writeLog(t, dir, "20261125-100000-new000", 2*day, `"type":"user_message","turn":1,"text":"hi"`)
	const held = "20261001-100000-held00"
	s := session.New(session.Options{ID: held, LogDir: dir})
	s.Start()
	defer s.Close()
	old := time.Now().Add(-50 * day)
	if err := os.Chtimes(filepath.Join(dir, held+".jsonl"), old, old); err != nil {
		t.Fatal(err)
	}
	logs := func() int {
		m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		return len(m)
	}

	code, out, _ := latchSessions(t, getenv, "prune", "--older-than", "30d", "--dry-run")
	if code != exitOK || !strings.Contains(out, "would remove 2 session(s) idle for more than 30d; kept 2") || logs() != 4 {
		t.Fatalf("dry run: exit %d, %d logs left, %q", code, logs(), out)
	}
	code, out, _ = latchSessions(t, getenv, "prune", "--older-than", "30d")
	if code != exitOK || !strings.Contains(out, "removed 2 session(s) idle for more than 30d; kept 2") ||
		!strings.Contains(out, "kept "+held+": it is open in another latch") {
		t.Fatalf("prune: exit %d, %q", code, out)
	}
	for id, want := range map[string]bool{"20261001-100000-old000": false, "20261001-100000-old001": false,
		"20261125-100000-new000": true, held: true} {
		if _, err := os.Stat(filepath.Join(dir, id+".jsonl")); (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", id, err == nil, want)
		}
	}
	if code, _, errs := latchSessions(t, getenv, "prune"); code != exitUsage || !strings.Contains(errs, "--older-than AGE is needed") {
		t.Errorf("prune without an age: exit %d, %q", code, errs)
	}
}
