package cli

// End-to-end tests of what latch asks of the terminal: the mouse is left to
// the terminal (its own selection works) unless the config says
// "mouse": true; keys the terminal can tell apart are asked for while
// latch runs, and given back when it ends; Shift+Enter, as such a
// terminal sends it, is a newline in the input.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// mouseModes are the sequences that make a terminal report the mouse.
var mouseModes = []string{"\x1b[?1000h", "\x1b[?1002h", "\x1b[?1003h", "\x1b[?1006h"}

// Disambiguated keys: the kitty protocol's flag pushed and popped,
// xterm's modifyOtherKeys set to 1 and reset.
const (
	kittyPush = "\x1b[>1u"
	kittyPop  = "\x1b[<u"
	otherKeys = "\x1b[>4;1m"
	otherOff  = "\x1b[>4m"
	altOn     = "\x1b[?1049h"
	altOff    = "\x1b[?1049l"
)

// startWithConfig runs latch in an 80×24 pty with config as its config
// file, and waits for its first screen.
func startWithConfig(t *testing.T, host, config string) *ptyTerm {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 24, Cols: 80, Host: host, Args: []string{"--model", e2eModel},
		Env: []string{"LATCH_CONFIG=" + cfg}})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool {
		return strings.HasPrefix(statusLine(s), " latch │ "+e2eModel+" │ ") && inputRow(s) >= 0
	})
	return tm
}

// TestE2EMouseIsLeftToTheTerminal: by default latch turns on no mouse
// reporting, so a drag selects text; "mouse": true in the config turns it
// on from the start.
func TestE2EMouseIsLeftToTheTerminal(t *testing.T) {
	fake := newFake(t)
	tm := startE2E(t, fake.Host())
	out := string(tm.rawOutput())
	for _, m := range mouseModes {
		if strings.Contains(out, m) {
			t.Errorf("latch turned on mouse reporting (%q) at the start", m)
		}
	}
	if !strings.Contains(tm.screen(), "drag selects") {
		t.Errorf("the key hints do not say how to select:\n%s", dumpScreen(tm.screen()))
	}
	quitNow(t, tm)

	tm = startWithConfig(t, fake.Host(), `{"mouse": true}`)
	out = string(tm.rawOutput())
	if !strings.Contains(out, "\x1b[?1002h") || !strings.Contains(out, "\x1b[?1006h") {
		t.Errorf("with \"mouse\": true latch did not turn on mouse reporting; output %q", out)
	}
	quitNow(t, tm)
	for _, m := range []int{1000, 1002, 1003, 1006} {
		if tm.termState().Modes[m] {
			t.Errorf("mouse mode %d is still on after exit", m)
		}
	}
}

// quitNow presses Ctrl+C until latch exits (the first press interrupts,
// a second one quits) and waits for status 0.
func quitNow(t *testing.T, tm *ptyTerm) {
	t.Helper()
	st := ctrlCUntilExit(tm, 30*time.Second)
	if st == nil || st.ExitCode() != 0 {
		t.Fatalf("latch did not exit cleanly on Ctrl+C (%v); screen:\n%s", st, dumpScreen(tm.screen()))
	}
	if !tm.drain(5 * time.Second) {
		t.Fatalf("output did not end after exit")
	}
}

// TestE2EShiftEnterIsANewline: latch asks for disambiguated keys once in
// the alternate screen; Shift+Enter as the kitty protocol (CSI 13;2u) and
// modifyOtherKeys (CSI 27;2;13~) send it puts a newline in the input and
// sends nothing; Enter then sends one message of three lines. On the way
// out the keys are given back before the alternate screen is left.
func TestE2EShiftEnterIsANewline(t *testing.T) {
	fake := newFake(t)
	fake.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("Three lines received.")})
	tm := startE2E(t, fake.Host())
	out := string(tm.rawOutput())
	at := strings.Index(out, altOn)
	if at < 0 || !strings.Contains(out[at:], kittyPush) || !strings.Contains(out[at:], otherKeys) {
		t.Errorf("no request for disambiguated keys in the alternate screen; output %q", out)
	}

	tm.typeKeys("one")
	tm.waitScreen(t, 5*time.Second, "one in the input", func(s string) bool { return inputText(s) == "one" })
	tm.typeKeys("\x1b[13;2u")
	tm.typeKeys("two")
	tm.typeKeys("\x1b[27;2;13~")
	tm.typeKeys("three")
	scr := tm.waitScreen(t, 5*time.Second, "three lines in the input", func(s string) bool {
		rows := screenRows(s)
		i := inputRow(s)
		return i >= 0 && i+2 < len(rows) && strings.TrimSpace(strings.TrimPrefix(rows[i], ">")) == "one" &&
			strings.TrimSpace(strings.TrimPrefix(rows[i+1], ">")) == "two" &&
			strings.TrimSpace(strings.TrimPrefix(rows[i+2], ">")) == "three"
	})
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("Shift+Enter sent the message (%d requests); screen:\n%s", n, dumpScreen(scr))
	}
	tm.sendKey(keyEnter)
	tm.waitScreen(t, 15*time.Second, "the answer", func(s string) bool {
		return strings.Contains(chatText(s), "Three lines received.")
	})
	if !hasUserMessage(fake, "one\ntwo\nthree") {
		t.Errorf("the fake did not get one message of three lines; requests: %+v", fake.Requests())
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}

	quitAndCheck(t, tm)
	out = string(tm.rawOutput())
	last := strings.LastIndex(out, altOff)
	if last < 0 {
		t.Fatalf("latch never left the alternate screen")
	}
	if !strings.Contains(out[:last], kittyPop) || !strings.Contains(out[:last], otherOff) {
		t.Errorf("the keys were not given back before the alternate screen was left; output %q", out)
	}
	if bytes.Count([]byte(out), []byte(kittyPush)) != bytes.Count([]byte(out), []byte(kittyPop)) {
		t.Errorf("pushed %d times, popped %d", strings.Count(out, kittyPush), strings.Count(out, kittyPop))
	}
}
