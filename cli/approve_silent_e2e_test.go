package cli

import (
	"strings"
	"testing"
	"time"

	"latch/session"
)

// TestApproveInASilentTerminalAfterTheGatewayExited: a call parked by a
// gateway whose client has since closed it, decided with latch approve in
// a terminal that answers no query. latch approve says at once (before
// a deadline a little over half of the 5 s that Bubble Tea's init used to
// wait there for the background colour, before a line of latch ran) that
// the gateway is not running, and that its client starts it again, which
// takes the call up; nothing is asked and the exit status is 1.
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

	start := time.Now()
	tm := startLatch(t, r.bin, ptyOptions{Rows: 40, Cols: 200, Host: r.fake.Host(), Silent: true,
		Args: []string{"--config", r.cfg, "approve", id}, Env: r.env})
	// 3 s: generous for a busy machine, and out of reach of the old
	// path's 5 s wait.
	scr, at, ok := tm.waitScreenAt(3*time.Second, func(s string) bool { return strings.Contains(unwrapped(s), "is not running") })
	if !ok {
		t.Fatalf("latch approve in a silent terminal said nothing within 3 s:\n%s", dumpScreen(scr))
	}
	t.Logf("latch approve in a terminal that answers nothing: its first words after %v", at.Sub(start).Round(time.Millisecond))
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
