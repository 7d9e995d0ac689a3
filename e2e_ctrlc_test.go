package main

// End to end in a pty: Ctrl+C interrupts (a second one quits, and the
// exit line says how to resume), and the input history outlives latch.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// keyUp is the ↑ key as a terminal sends it.
const keyUp = "\x1b[A"

// ctrlCUntilExit presses Ctrl+C, and again every 300 ms, until latch
// exits: the first press interrupts (and arms the quit), the next one
// within the window quits. It returns the exit state, nil after timeout.
func ctrlCUntilExit(tm *ptyTerm, timeout time.Duration) *os.ProcessState {
	deadline := time.Now().Add(timeout)
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
