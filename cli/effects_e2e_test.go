package cli

// A server's effect, end to end: the real latch binary and the npm
// server-filesystem, latch killed with SIGKILL while a write runs, then
// resumed. The server runs behind a wrapper that copies what latch sends
// it (callLog) and notes each write the server reports done (the
// witness); once it has, the wrapper holds that reply back until a
// release file exists, so the test kills latch at a moment it knows: the
// file is written, latch has not heard of it.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// fsWrapper runs server-filesystem on $ROOT with its input copied to
// $CALL_LOG. Each reply of a write done adds a line to $WITNESS; with
// $LATCH_TEST_RELEASE set, that reply waits until the file it names
// exists.
const fsWrapper = `echo $$ >> "$PID_LOG"
tee -a "$CALL_LOG" | "$FS_BIN" "$ROOT" | while IFS= read -r line; do
	case "$line" in *"Successfully wrote"*)
		echo wrote >> "$WITNESS"
		if [ -n "$LATCH_TEST_RELEASE" ]; then
			while [ ! -e "$LATCH_TEST_RELEASE" ]; do sleep 0.05; done
		fi ;;
	esac
	printf '%s\n' "$line"
done`

// effectRig is a crash rig whose one server, fs, is server-filesystem
// with the effect given, in auto mode: the model's write runs unasked.
type effectRig struct {
	*crashRig
	witness string         // a line per write the server did
	target  string         // the file the model writes
	server  map[string]any // fs's entry in the config
}

// writeServer writes the config with fs's entry changed by edit.
func (r *effectRig) writeServer(edit func(map[string]any)) {
	s := map[string]any{}
	for k, v := range r.server {
		s[k] = v
	}
	edit(s)
	r.writeConfig(map[string]any{"permissions": map[string]any{"mode": "auto"}, "mcpServers": map[string]any{"fs": s}})
}

func newEffectRig(t *testing.T, effect string) *effectRig {
	t.Helper()
	fs := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	r := &effectRig{crashRig: newRig(t)}
	dir, err := filepath.EvalSymlinks(r.dir) // the server compares real paths
	if err != nil {
		t.Fatal(err)
	}
	r.witness, r.target = filepath.Join(r.root, "witness"), filepath.Join(dir, "note.txt")
	r.server = map[string]any{
		"command": "/bin/sh",
		"args":    []string{"-c", fsWrapper},
		"env": map[string]string{"ROOT": dir, "CALL_LOG": r.callLog, "PID_LOG": r.pidLog,
			"WITNESS": r.witness, "FS_BIN": fs},
		"env_inherit": []string{"LATCH_TEST_RELEASE"},
	}
	if effect != "" { // "": the default
		r.server["effect"] = effect
	}
	r.writeServer(func(map[string]any) {})
	args := api.NewToolCallFunctionArguments()
	args.Set("path", r.target)
	args.Set("content", "hello\n")
	r.fake.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_w",
			Function: api.ToolCallFunction{Name: "fs__write_file", Arguments: args}}}}}},
		ollamatest.TextTurn("Written."),
	)
	return r
}

// writesDone counts the writes the server reported done.
func (r *effectRig) writesDone() int {
	b, err := os.ReadFile(r.witness)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		r.t.Fatal(err)
	}
	return strings.Count(string(b), "wrote\n")
}

// killedDuringWrite runs latch with args and kills it (SIGKILL) once the
// server has done write number n and holds its reply; then it lets the
// server go, and waits until it is gone. It returns the session id.
func (r *effectRig) killedDuringWrite(n int, args ...string) string {
	r.t.Helper()
	release := filepath.Join(r.root, "release"+time.Now().Format("150405.000000000"))
	cmd, _, stderr := r.command("", []string{"LATCH_TEST_RELEASE=" + release}, args...)
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for r.writesDone() < n {
		select {
		case err := <-done:
			r.t.Fatalf("latch ended (%v) before write %d was done; stderr:\n%s", err, n, stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill() // this test's own child, by its pid
			<-done
			r.t.Fatalf("write %d was not done within 2 minutes; stderr:\n%s", n, stderr)
		}
	}
	_ = cmd.Process.Kill() // SIGKILL: latch has no chance to write anything more
	var ee *exec.ExitError
	if err := <-done; !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
		r.t.Fatalf("latch ended (%v) before it was killed; stderr:\n%s", err, stderr)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		r.t.Fatal(err)
	}
	r.waitServersGone()
	id := r.latestSession()
	evs := r.events(id)
	if callEvents(evs, "tool_result") != 0 {
		r.t.Fatalf("the log holds the write's result: latch heard of it before it was killed: %+v", evs)
	}
	return id
}

// latestSession is the id of the one session in the state directory.
func (r *effectRig) latestSession() string {
	r.t.Helper()
	m, err := filepath.Glob(filepath.Join(r.stateDir, "*.jsonl"))
	if err != nil || len(m) != 1 {
		r.t.Fatalf("session logs %v (%v), want one", m, err)
	}
	return strings.TrimSuffix(filepath.Base(m[0]), ".jsonl")
}

// callEvents counts the log events of call_w of type typ ("allowed" is a
// permission event allowing it).
func callEvents(evs []logEvent, typ string) int {
	n := 0
	for _, e := range evs {
		if e.CallID == "call_w" && (e.Type == typ || typ == "allowed" && e.Type == "permission" && e.Decision == "allowed") {
			n++
		}
	}
	return n
}

// checkWritten checks the witnesses: writes sent to the server, writes it
// did, and the file.
func (r *effectRig) checkWritten(when string, want int) {
	r.t.Helper()
	b, err := os.ReadFile(r.callLog)
	if err != nil {
		r.t.Fatal(err)
	}
	if sent := strings.Count(string(b), `"name":"write_file"`); sent != want {
		r.t.Errorf("%s: the write was sent %d times, want %d", when, sent, want)
	}
	if done := r.writesDone(); done != want {
		r.t.Errorf("%s: the server wrote %d times, want %d", when, done, want)
	}
	if b, err := os.ReadFile(r.target); err != nil || string(b) != "hello\n" {
		r.t.Errorf("%s: the file holds %q (%v), want the write's", when, b, err)
	}
}

// TestEffectIdempotentRetriedOnceAfterKill: a write of an idempotent
// server cut off by kill -9 runs again on --resume, once, saying so; the
// turn finishes with its result, and a later resume runs nothing.
func TestEffectIdempotentRetriedOnceAfterKill(t *testing.T) {
	t.Parallel()
	r := newEffectRig(t, "idempotent")
	id := r.killedDuringWrite(1, "-p", "write the note")
	r.checkWritten("killed", 1)

	res := r.run("", nil, "--resume", id, "-p", "")
	if res.code != exitOK || strings.TrimSpace(res.stdout) != "Written." {
		t.Fatalf("resume: exit %d, stdout %q; want 0 and the model's answer", res.code, res.stdout)
	}
	for _, want := range []string{"call call_w (fs__write_file) was running when latch stopped", "its server, fs, is idempotent", "runs again, once"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the resume's notice lacks %q:\n%s", want, res.stderr)
		}
	}
	r.checkWritten("resumed", 2)
	evs := r.events(id)
	if callEvents(evs, "call_retried") != 1 || callEvents(evs, "allowed") != 2 || callEvents(evs, "tool_result") != 1 {
		t.Errorf("the log should hold one retry, two starts and one result: %+v", evs)
	}
	if told := toolMessages(r.fake)["call_w"]; !strings.Contains(told, "Successfully wrote") {
		t.Errorf("the model was given %q for the write, want the server's result", told)
	}

	if res := r.run("", nil, "--resume", id, "-p", ""); res.code != exitUsage {
		t.Errorf("resuming the finished session: exit %d, want 2 (nothing left to do)", res.code)
	}
	r.checkWritten("at the end", 2)
}

// TestEffectAtMostOnceWaitsAfterKill: the same write of an at_most_once
// server (the default) is in doubt on --resume: it waits for a person,
// and nothing runs again.
func TestEffectAtMostOnceWaitsAfterKill(t *testing.T) {
	t.Parallel()
	for _, effect := range []string{"at_most_once", ""} {
		t.Run("effect="+effect, func(t *testing.T) {
			r := newEffectRig(t, effect)
			id := r.killedDuringWrite(1, "-p", "write the note")
			for range 2 {
				res := r.run("", nil, "--resume", id, "-p", "")
				if res.code != exitParked {
					t.Errorf("resume: exit %d, want 3 (the call in doubt waits for a person)", res.code)
				}
				for _, want := range []string{"outcome is unknown", "/retry call_w", "/dismiss call_w"} {
					if !strings.Contains(res.stderr, want) {
						t.Errorf("resume: stderr lacks %q:\n%s", want, res.stderr)
					}
				}
				if strings.Contains(res.stderr, "runs again") {
					t.Errorf("resume says the call runs again:\n%s", res.stderr)
				}
			}
			r.checkWritten("resumed", 1)
			if evs := r.events(id); callEvents(evs, "call_retried") != 0 || callEvents(evs, "allowed") != 1 {
				t.Errorf("the resumes retried or started the call: %+v", evs)
			}
		})
	}
}

// TestEffectRetryKilledAgainWaits: the retry itself killed by a second
// kill -9 is not retried again: the next resume finds two starts in the
// log, and the call waits for a person.
func TestEffectRetryKilledAgainWaits(t *testing.T) {
	t.Parallel()
	r := newEffectRig(t, "idempotent")
	id := r.killedDuringWrite(1, "-p", "write the note")
	r.killedDuringWrite(2, "--resume", id, "-p", "")
	r.checkWritten("killed twice", 2)
	for range 2 {
		res := r.run("", nil, "--resume", id, "-p", "")
		if res.code != exitParked || !strings.Contains(res.stderr, "already been run again") || !strings.Contains(res.stderr, "/retry call_w") {
			t.Errorf("resume after the retry was killed: exit %d, stderr:\n%s\nwant 3 and the call waiting for a person, said to have run again", res.code, res.stderr)
		}
	}
	r.checkWritten("resumed", 2)
	if evs := r.events(id); callEvents(evs, "call_retried") != 1 || callEvents(evs, "allowed") != 2 {
		t.Errorf("the log should hold one retry and two starts: %+v", evs)
	}
}

// TestEffectIdempotentServerDownWaits: resumed while the idempotent
// server cannot start, the write in doubt is not spent: it waits for a
// person, saying why (exit 3); resumed with the server back, it runs
// again, once.
func TestEffectIdempotentServerDownWaits(t *testing.T) {
	t.Parallel()
	r := newEffectRig(t, "idempotent")
	id := r.killedDuringWrite(1, "-p", "write the note")
	r.writeServer(func(s map[string]any) { s["command"] = filepath.Join(r.root, "no-such-server") })
	res := r.run("", nil, "--resume", id, "-p", "")
	if res.code != exitParked || !strings.Contains(res.stderr, "fs, is not connected") || !strings.Contains(res.stderr, "/retry call_w") {
		t.Errorf("resume with the server down: exit %d, stderr:\n%s\nwant 3 and the write waiting for a person, saying why", res.code, res.stderr)
	}
	r.checkWritten("resumed with the server down", 1)

	r.writeServer(func(map[string]any) {})
	if res := r.run("", nil, "--resume", id, "-p", ""); res.code != exitOK || strings.TrimSpace(res.stdout) != "Written." {
		t.Errorf("resume with the server back: exit %d, stdout %q; want 0 and the model's answer", res.code, res.stdout)
	}
	r.checkWritten("resumed with the server back", 2)
}
