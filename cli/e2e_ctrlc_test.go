package cli

// End to end in a pty: Ctrl+C interrupts (a second one quits, and the
// exit line says how to resume), and the input history outlives latch.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// keyUp is the ↑ key as a terminal sends it.
const keyUp = "\x1b[A"

// ctrlCUntilExit presses Ctrl+C, and again every 300 ms, until latch
// exits: the first press interrupts (and arms the quit), the next one
// within the window quits. It returns the exit state, nil after timeout.
func ctrlCUntilExit(tm *ptyTerm, timeout time.Duration) *os.ProcessState {
	deadline := time.Now().Add(mcptestutil.HangBound(timeout)) // a hang's bound, not a measure
	for time.Now().Before(deadline) {
		tm.sendKey(keyCtrlC)
		if st := tm.waitExit(300 * time.Millisecond); st != nil {
			return st
		}
	}
	return nil
}

// exitLineRE is the line latch leaves on the normal screen.
var exitLineRE = regexp.MustCompile(`session (\S+) · resume with: latch --resume (\S+)`)

// TestE2ECtrlCInterruptsThenQuits: Ctrl+C in the middle of a slowly
// streamed reply stops it and keeps latch running, the partial reply on
// screen and "Ctrl+C again to quit" above the input; a second Ctrl+C
// quits, leaving on the normal screen the session's id and `latch
// --resume ID`. latch started again on the same state folder brings the
// message back with ↑.
func TestE2ECtrlCInterruptsThenQuits(t *testing.T) {
	fake := newFake(t)
	slow := "Slowly now: " + strings.Repeat("word ", 200) + "NEVER-SHOWN-END."
	fake.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(slow), Delay: 50 * time.Millisecond})
	state := t.TempDir()
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	start := func() *ptyTerm {
		tm := startLatch(t, bin, ptyOptions{Rows: 24, Cols: 100, Host: fake.Host(),
			Args: []string{"--model", e2eModel}, Env: []string{"XDG_STATE_HOME=" + state}})
		tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool {
			return strings.HasPrefix(statusLine(s), " latch │ "+e2eModel) && inputRow(s) >= 0
		})
		return tm
	}

	tm := start()
	const prompt = "Tell me a very long story"
	sendPrompt(t, tm, prompt)
	tm.waitScreen(t, 10*time.Second, "the first words of the slow reply", func(s string) bool {
		return strings.Contains(chatText(s), "Slowly now: word word") && strings.Contains(statusLine(s), "streaming")
	})
	tm.sendKey(keyCtrlC)
	scr := tm.waitScreen(t, 5*time.Second, `the reply stopped and "Ctrl+C again to quit"`, func(s string) bool {
		return strings.Contains(chatText(s), "cancelled") && !strings.Contains(statusLine(s), "streaming") &&
			strings.Contains(screenRows(s)[inputRow(s)-1], "Ctrl+C again to quit")
	})
	t.Logf("screen after the first Ctrl+C:\n%s", dumpScreen(scr))
	select {
	case <-tm.exited:
		t.Fatalf("latch exited on the first Ctrl+C mid-reply")
	default:
	}
	if !strings.Contains(chatText(scr), "Slowly now: word word") || strings.Contains(scr, "NEVER-SHOWN-END") {
		t.Errorf("the partial reply is not on screen (or the whole one is):\n%s", dumpScreen(scr))
	}
	if n := fake.WaitCancelled(1, 5*time.Second); n < 1 {
		t.Errorf("the fake saw %d cancelled replies after Ctrl+C, want ≥ 1", n)
	}

	tm.sendKey(keyCtrlC)
	st := tm.waitExit(5 * time.Second)
	if st == nil {
		// The second press came after the window (a slow machine): it
		// armed again; the next one quits.
		st = ctrlCUntilExit(tm, 10*time.Second)
	}
	if st == nil || st.ExitCode() != 0 {
		t.Fatalf("latch did not exit with 0 after a second Ctrl+C: %v; screen:\n%s", st, dumpScreen(tm.screen()))
	}
	if !tm.drain(5 * time.Second) {
		t.Fatal("output did not end after exit")
	}
	if tm.termState().AltScreen {
		t.Fatal("still on the alternate screen")
	}
	t.Logf("the normal screen after the exit:\n%s", dumpScreen(tm.screen()))
	normal := unwrapped(tm.screen())
	mt := exitLineRE.FindStringSubmatch(normal)
	if mt == nil || mt[1] != mt[2] {
		t.Fatalf("no exit line with `latch --resume ID` on the normal screen:\n%s", dumpScreen(tm.screen()))
	}
	if _, err := os.Stat(filepath.Join(state, "latch", "sessions", mt[1]+".jsonl")); err != nil {
		t.Errorf("the exit line names session %s, whose log is not there: %v", mt[1], err)
	}

	tm = start()
	tm.sendKey(keyUp)
	scr = tm.waitScreen(t, 5*time.Second, "the previous message in the input after ↑", func(s string) bool {
		return inputText(s) == prompt
	})
	t.Logf("screen after ↑ in a new latch:\n%s", dumpScreen(scr))
	if st := ctrlCUntilExit(tm, 10*time.Second); st == nil {
		t.Fatalf("latch did not exit on Ctrl+C; screen:\n%s", dumpScreen(tm.screen()))
	}
	tm.drain(5 * time.Second)
	if strings.Contains(unwrapped(tm.screen()), "resume with") {
		t.Errorf("an exit line for a session with nothing in it:\n%s", dumpScreen(tm.screen()))
	}
}

// TestE2ESignalQuitSaysResumeAndParkedCalls: quitting by SIGTERM, with a
// call parked for approval (mode approve), leaves the exit line too, with
// the call counted; the call is still parked when the session resumes.
func TestE2ESignalQuitSaysResumeAndParkedCalls(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	args := api.NewToolCallFunctionArguments()
	args.Set("message", "hi")
	fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "c1",
		Function: api.ToolCallFunction{Name: "fake__echo", Arguments: args}}}}}})
	cfg, _ := json.Marshal(map[string]any{
		"permissions": map[string]any{"mode": "approve"},
		"mcpServers":  map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	})
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 30, Cols: 140, Host: fake.Host(),
		Args: []string{"--model", e2eModel, "--config", path}, Env: []string{"XDG_STATE_HOME=" + state}})
	tm.waitScreen(t, 15*time.Second, "the server connected", func(s string) bool {
		return strings.Contains(statusLine(s), "servers 1/1")
	})
	sendPrompt(t, tm, "echo hi")
	tm.waitScreen(t, 15*time.Second, "the call parked", func(s string) bool {
		return strings.Contains(statusLine(s), "1 pending")
	})
	_ = syscall.Kill(tm.Pid, syscall.SIGTERM) // this test's own child
	if st := tm.waitExit(mcptestutil.HangBound(15 * time.Second)); st == nil || st.ExitCode() != 0 {
		t.Fatalf("latch did not exit with 0 on SIGTERM: %v; screen:\n%s", st, dumpScreen(tm.screen()))
	}
	tm.drain(5 * time.Second)
	normal := unwrapped(tm.screen())
	mt := exitLineRE.FindStringSubmatch(normal)
	if mt == nil || !strings.Contains(normal, "latch --resume "+mt[1]+" · 1 call waits for approval") {
		t.Fatalf("no exit line counting the parked call:\n%s", dumpScreen(tm.screen()))
	}

	tm = startLatch(t, bin, ptyOptions{Rows: 30, Cols: 140, Host: fake.Host(),
		Args: []string{"--model", e2eModel, "--config", path, "--resume", mt[1]}, Env: []string{"XDG_STATE_HOME=" + state}})
	tm.waitScreen(t, 15*time.Second, "the parked call after --resume", func(s string) bool {
		return strings.Contains(statusLine(s), "1 pending") && strings.Contains(unwrapped(s), "/approve")
	})
	if st := ctrlCUntilExit(tm, 10*time.Second); st == nil {
		t.Fatalf("latch did not exit on Ctrl+C; screen:\n%s", dumpScreen(tm.screen()))
	}
}
