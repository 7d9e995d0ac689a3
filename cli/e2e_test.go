package cli

// End-to-end tests: the real latch binary, in a real pseudo-terminal,
// against the fake Ollama server of latch/session/ollamatest. Assertions are
// about the screen (see pty_test.go for the emulator), the requests the fake
// recorded, the exit status and the terminal state left behind.

import (
	"bytes"
	"latch/mcp/mcptestutil"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"latch/session/ollamatest"
)

const e2eModel = "qwen3:8b"

func newFake(t *testing.T) *ollamatest.Server {
	t.Helper()
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion"}})
	t.Cleanup(fake.Close)
	return fake
}

// startE2E runs latch (built with -race when the tests are) in an 80×24 pty
// against host and waits for its first screen.
func startE2E(t *testing.T, host string) *ptyTerm {
	t.Helper()
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 24, Cols: 80, Host: host, Args: []string{"--model", e2eModel}})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool {
		rows := screenRows(s)
		return strings.HasPrefix(rows[0], " latch │ "+e2eModel+" │ ") && inputRow(s) >= 0
	})
	return tm
}

// inputRow returns the index of the input line ("> " prompt) that follows the
// rule line with the key hints, or -1.
func inputRow(s string) int {
	rows := screenRows(s)
	for i := len(rows) - 2; i > 0; i-- {
		if strings.HasPrefix(rows[i], "──") && strings.HasPrefix(rows[i+1], ">") {
			return i + 1
		}
	}
	return -1
}

// inputText returns what the input line shows after the prompt.
func inputText(s string) string {
	i := inputRow(s)
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(strings.TrimPrefix(screenRows(s)[i], ">"))
}

// chatText is the screen between the status line and the rule line,
// unwrapped (see unwrapped).
func chatText(s string) string {
	rows := screenRows(s)
	end := inputRow(s) - 1
	if end < 1 {
		end = len(rows)
	}
	return unwrapped(strings.Join(rows[1:end], "\n"))
}

func statusLine(s string) string { return screenRows(s)[0] }

// sendPrompt types text, waits until the input line shows it, and presses
// Enter.
func sendPrompt(t *testing.T, tm *ptyTerm, text string) {
	t.Helper()
	tm.typeKeys(text)
	tm.waitScreen(t, 5*time.Second, "the prompt in the input line", func(s string) bool {
		return inputText(s) == text
	})
	tm.sendKey(keyEnter)
}

// hasUserMessage reports whether a recorded request carries text as a user
// message.
func hasUserMessage(fake *ollamatest.Server, text string) bool {
	for _, r := range fake.Requests() {
		for _, m := range r.Messages {
			if m.Role == "user" && m.Content == text {
				return true
			}
		}
	}
	return false
}

func TestE2EChat(t *testing.T) {
	fake := newFake(t)
	const answer = "Streaming works end to end: the reply arrives token by token, " +
		"is drawn as it comes, and stays on the screen. Final words: purple elephants dancing."
	// 20 ms a token: the stream lasts long enough (about 0.6 s) for a screen
	// to be caught mid-way on a loaded machine.
	fake.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(answer), Delay: 20 * time.Millisecond})

	tm := startE2E(t, fake.Host())
	if running, err := tm.termios(); err != nil {
		t.Errorf("termios while running: %v", err)
	} else if running.Lflag&(unix.ICANON|unix.ECHO) != 0 {
		t.Errorf("the terminal is not in raw mode while latch runs: lflag=%#x", running.Lflag)
	}

	const prompt = "What does the end-to-end test check?"
	sendPrompt(t, tm, prompt)
	sawPartial := false // a screen with part of the answer while streaming
	scr := tm.waitScreen(t, 15*time.Second, "the whole streamed answer", func(s string) bool {
		c := chatText(s)
		if strings.Contains(c, "Streaming works") && !strings.Contains(c, "purple elephants") &&
			strings.Contains(statusLine(s), "streaming…") {
			sawPartial = true
		}
		return strings.Contains(c, "Final words: purple elephants dancing.") &&
			strings.Contains(statusLine(s), "tok/s")
	})
	t.Logf("screen after the reply:\n%s", dumpScreen(scr))
	if !sawPartial {
		t.Errorf("no screen showed part of the answer with \"streaming…\" in the status line: the reply was not drawn as it streamed")
	}
	if !strings.Contains(chatText(scr), prompt) {
		t.Errorf("the prompt is not in the chat; screen:\n%s", dumpScreen(scr))
	}
	if !strings.Contains(chatText(scr), "Streaming works end to end") {
		t.Errorf("the beginning of the answer is not on screen; screen:\n%s", dumpScreen(scr))
	}
	if in := inputText(scr); in != "" && !strings.HasPrefix(in, "Ask anything") { // empty, or the placeholder
		t.Errorf("input line not cleared after sending: %q", in)
	}
	if !hasUserMessage(fake, prompt) {
		t.Errorf("the fake did not receive the prompt as a user message; requests: %+v", fake.Requests())
	}

	quitAndCheck(t, tm)
}

// quitAndCheck presses Ctrl+C until latch exits (the first press
// interrupts, a second one quits) and checks that it exits with status 0
// within 5 s and leaves the terminal as it found it.
func quitAndCheck(t *testing.T, tm *ptyTerm) {
	t.Helper()
	st := ctrlCUntilExit(tm, 5*time.Second)
	if st == nil {
		t.Fatalf("latch did not exit within 5 s of Ctrl+C; screen:\n%s", dumpScreen(tm.screen()))
	}
	if st.ExitCode() != 0 {
		t.Errorf("exit status %d (%v), want 0; screen:\n%s", st.ExitCode(), st, dumpScreen(tm.screen()))
	}
	after, err := tm.termios()
	if err != nil {
		t.Fatalf("termios after exit: %v", err)
	}
	if !tm.drain(5 * time.Second) {
		t.Fatalf("output did not end after exit")
	}
	checkCooked(t, tm.initial, after)
	checkRestored(t, tm)
}

// checkCooked checks that the terminal is back in cooked mode, as it was
// before latch started.
func checkCooked(t *testing.T, before, after *unix.Termios) {
	t.Helper()
	if before.Lflag&unix.ICANON == 0 || before.Lflag&unix.ECHO == 0 {
		t.Fatalf("the pty was not in cooked mode before the start: lflag=%#x", before.Lflag)
	}
	if after.Lflag&unix.ICANON == 0 {
		t.Errorf("ICANON is off after exit: the terminal is left in raw mode (lflag %#x, was %#x)", after.Lflag, before.Lflag)
	}
	if after.Lflag&unix.ECHO == 0 {
		t.Errorf("ECHO is off after exit (lflag %#x, was %#x)", after.Lflag, before.Lflag)
	}
	if after.Iflag != before.Iflag || after.Oflag != before.Oflag || after.Lflag != before.Lflag || after.Cflag != before.Cflag {
		t.Errorf("termios not restored: before iflag=%#x oflag=%#x cflag=%#x lflag=%#x, after iflag=%#x oflag=%#x cflag=%#x lflag=%#x",
			before.Iflag, before.Oflag, before.Cflag, before.Lflag, after.Iflag, after.Oflag, after.Cflag, after.Lflag)
	}
}

// checkRestored checks the end of the output: the alternate screen left,
// the cursor shown, and the modes latch turned on turned off again.
func checkRestored(t *testing.T, tm *ptyTerm) {
	t.Helper()
	raw := tm.rawOutput()
	const leaveAlt, showCursor = "\x1b[?1049l", "\x1b[?25h"
	i := bytes.LastIndex(raw, []byte(leaveAlt))
	if i < 0 {
		t.Fatalf("the output never leaves the alternate screen; tail: %q", tail(raw, 300))
	}
	rest := raw[i+len(leaveAlt):]
	if !bytes.Contains(rest, []byte(showCursor)) {
		t.Errorf("the cursor is not shown after leaving the alternate screen; tail: %q", tail(raw, 300))
	}
	for _, bad := range []string{"\x1b[?1049h", "\x1b[?25l"} {
		if j := bytes.LastIndex(raw, []byte(bad)); j > i {
			t.Errorf("%q comes after the last %q; tail: %q", bad, leaveAlt, tail(raw, 300))
		}
	}
	if s := strings.TrimSpace(string(rest[bytes.Index(rest, []byte(showCursor))+len(showCursor):])); s != "" {
		t.Logf("output after the final %q: %q", showCursor, s)
	}
	st := tm.termState()
	if st.AltScreen {
		t.Errorf("the emulated terminal is still on the alternate screen")
	}
	if !st.CursorVisible {
		t.Errorf("the emulated terminal's cursor is hidden after exit")
	}
	for _, m := range []int{1000, 1002, 1003, 1006, 2004, 1004} {
		if st.Modes[m] {
			t.Errorf("DEC private mode %d is still on after exit", m)
		}
	}
	t.Logf("terminal queries answered: %v", st.Queries)
	// latch asks once whether the terminal has synchronized output, and
	// this one says so: every frame after the answer is bracketed, and
	// the mode is off at the end (no frame left half-drawn).
	if st.Queries["DECRQM"] != 1 {
		t.Errorf("asked about synchronized output %d times, want once", st.Queries["DECRQM"])
	}
	raw = tm.rawOutput()
	if on, off := bytes.Count(raw, []byte("\x1b[?2026h")), bytes.Count(raw, []byte("\x1b[?2026l")); on < 3 || on != off {
		t.Errorf("synchronized-output brackets: %d opened, %d closed", on, off)
	}
	if st.Modes[2026] {
		t.Error("synchronized output is still on after exit")
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func TestE2EEscCancels(t *testing.T) {
	fake := newFake(t)
	var words []string
	for i := 1; i <= 200; i++ {
		words = append(words, "word")
	}
	slow := "Slowly now: " + strings.Join(words, " ") + " NEVER-SHOWN-END."
	fake.Script(
		ollamatest.Turn{Chunks: ollamatest.Tokens(slow), Delay: 50 * time.Millisecond},
		ollamatest.Turn{Chunks: ollamatest.Tokens("Second answer arrives complete: blue giraffes."), Delay: 5 * time.Millisecond},
	)
	tm := startE2E(t, fake.Host())

	const first = "Tell me a long story"
	sendPrompt(t, tm, first)
	tm.waitScreen(t, 10*time.Second, "the first words of the slow reply", func(s string) bool {
		return strings.Contains(chatText(s), "Slowly now: word word") && strings.Contains(statusLine(s), "streaming")
	})
	tm.sendKey(keyEsc)
	scr := tm.waitScreen(t, 5*time.Second, `"cancelled" after Esc`, func(s string) bool {
		return strings.Contains(chatText(s), "cancelled") && !strings.Contains(statusLine(s), "streaming")
	})
	t.Logf("screen after Esc:\n%s", dumpScreen(scr))
	if n := fake.WaitCancelled(1, 5*time.Second); n < 1 {
		t.Errorf("the fake saw %d cancelled replies after Esc, want ≥ 1", n)
	}
	if strings.Contains(scr, "NEVER-SHOWN-END") {
		t.Errorf("the whole slow reply is on screen although it was cancelled")
	}

	const second = "And now something short"
	sendPrompt(t, tm, second)
	scr = tm.waitScreen(t, 10*time.Second, "the second answer", func(s string) bool {
		return strings.Contains(chatText(s), "Second answer arrives complete: blue giraffes.") &&
			strings.Contains(statusLine(s), "tok/s")
	})
	t.Logf("screen after the second prompt:\n%s", dumpScreen(scr))
	if !hasUserMessage(fake, first) || !hasUserMessage(fake, second) {
		t.Errorf("the fake did not receive both prompts; requests: %+v", fake.Requests())
	}
	if n := len(fake.Requests()); n < 2 {
		t.Errorf("the fake recorded %d chat requests, want ≥ 2", n)
	}

	quitAndCheck(t, tm)
}

// closedPort returns an address on which nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestE2EUnreachable(t *testing.T) {
	tm := startE2E(t, closedPort(t))
	// latch probes the model at start; against a closed port that probe may
	// already show the error once. The prompt must show it (again) below
	// the prompt.
	const prompt = "Is anybody there?"
	sendPrompt(t, tm, prompt)
	afterPrompt := func(s string) string {
		c := chatText(s)
		if i := strings.Index(c, "› "+prompt); i >= 0 {
			return c[i+len("› "+prompt):]
		}
		return ""
	}
	scr := tm.waitScreen(t, 10*time.Second, "the unreachable error below the prompt", func(s string) bool {
		c := afterPrompt(s)
		return strings.Contains(c, "cannot reach Ollama") && strings.Contains(c, "ollama serve") &&
			!strings.Contains(statusLine(s), "streaming")
	})
	t.Logf("screen:\n%s", dumpScreen(scr))
	if n := strings.Count(afterPrompt(scr), "✗"); n != 1 {
		t.Errorf("%d error entries below the prompt, want 1; screen:\n%s", n, dumpScreen(scr))
	}

	// The message was never sent: it stays in the input, not cleared.
	tm.waitScreen(t, 5*time.Second, "the unsent message kept in the input", func(s string) bool {
		return inputText(s) == prompt
	})
	// Still running and usable: typing still reaches the input line.
	select {
	case <-tm.exited:
		t.Fatalf("latch exited after the error; screen:\n%s", dumpScreen(tm.screen()))
	case <-time.After(300 * time.Millisecond):
	}
	tm.typeKeys(" still here")
	tm.waitScreen(t, 5*time.Second, "typing after the error", func(s string) bool {
		return inputText(s) == prompt+" still here"
	})
	quitAndCheck(t, tm)
}
