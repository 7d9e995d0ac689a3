package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"latch/session"
)

// TestApproveInASilentTerminalAfterTheGatewayExited: a call parked by a
// gateway whose client has since closed it, decided with latch approve in
// a terminal that answers no query. latch approve says at once that the
// gateway is not running, and that its client starts it again, which
// takes the call up; nothing is asked and the exit status is 1. "At
// once" is told by what it wrote, not by a deadline (a busy machine
// starts a race-built latch slower than any deadline that would still
// tell the old path): no query to the terminal (the background colour
// that Bubble Tea's init waited 5 s for here, before a line of latch ran;
// DA1) comes before the words.
func TestApproveInASilentTerminalAfterTheGatewayExited(t *testing.T) {
	r := newPromptRig(t, nil, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio("--mode", "ask"), "calls": []any{createAlice}})
	id := callHandle(t, res, 0).InvocationID
	calls, err := session.ParkedCalls(r.state)
	if err != nil || len(calls) != 1 {
		t.Fatalf("parked calls: %v, %v", calls, err)
	}
	// The client has closed latch serve; wait for it to be gone.
	deadline := time.Now().Add(time.Minute)
	for session.Running(r.state, calls[0].Session) {
		if time.Now().After(deadline) {
			t.Fatal("latch serve still runs a minute after its client closed it")
		}
		time.Sleep(20 * time.Millisecond)
	}

	tm := startLatch(t, r.bin, ptyOptions{Rows: 40, Cols: 200, Host: r.fake.Host(), Silent: true,
		Args: []string{"--config", r.cfg, "approve", id}, Env: r.env})
	tm.waitScreen(t, time.Minute, "latch approve saying the gateway is not running", func(s string) bool {
		return strings.Contains(unwrapped(s), "is not running")
	})
	raw := tm.rawOutput()
	before, _, _ := bytes.Cut(raw, []byte("is not"))
	for _, query := range []string{"\x1b]11;?", "\x1b]10;?", "\x1b[c", "\x1b[6n"} {
		if bytes.Contains(before, []byte(query)) {
			t.Errorf("latch approve asked the terminal %q (which answers nothing) before saying the gateway is not running: %q", query, before)
		}
	}
	st := tm.waitExit(time.Minute)
	if st == nil || st.ExitCode() != exitError {
		t.Fatalf("latch approve did not exit 1: %v", st)
	}
	tm.drain(5 * time.Second)
	screen := unwrapped(tm.screen())
	for _, want := range []string{"latch: approve " + id + ": the gateway that parked it (session " + calls[0].Session + ") is not running",
		"Its client starts it again", "it takes up the calls left waiting, and then latch approve decides this one"} {
		if !strings.Contains(screen, want) {
			t.Errorf("latch approve does not say %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, decideQuestion) {
		t.Errorf("latch approve asked about a call its gateway cannot take:\n%s", screen)
	}
}
