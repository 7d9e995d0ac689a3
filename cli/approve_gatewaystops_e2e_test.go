package cli

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// latch approve whose gateway stops after the decision was sent and
// before it took it (stopped, then killed): latch approve says at once
// that the gateway stopped before taking it and that the decision applies
// when the gateway starts again, instead of waiting out its 10 s and
// saying the gateway has not taken it; the decision still waits in the
// gateway's inbox, and the call has not run.
func TestApproveWhenTheGatewayStopsBeforeTakingIt(t *testing.T) {
	t.Parallel()
	const token = "approve-stops-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	res := sdkClient(t, r, map[string]any{"http": map[string]any{"url": srv.url, "token": token},
		"clientName": "claude-e2e", "calls": []any{createAlice}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	h := callHandle(t, res, 0)
	tm := r.startDecide("", "approve", h.InvocationID)
	tm.waitScreen(t, time.Minute, "the question", func(s string) bool { return strings.Contains(unwrapped(s), decideQuestion) })
	// The gateway holds its session but takes nothing from its inbox.
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	tm.typeKeys(idTail(h.InvocationID) + keyEnter)
	queued := filepath.Join(r.state, "inbox", "*", h.InvocationID+".json")
	mcptestutil.WaitFor(t, time.Minute, "the decision in the gateway's inbox", func() bool {
		m, _ := filepath.Glob(queued)
		return len(m) == 1
	})
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	st := tm.waitExit(mcptestutil.HangBound(time.Minute))
	if st == nil {
		t.Fatalf("latch approve did not end after its gateway was killed; screen:\n%s", dumpScreen(tm.screen()))
	}
	tm.drain(time.Minute)
	scr := unwrapped(tm.screen())
	if st.ExitCode() != exitError || !strings.Contains(scr, "stopped before taking it; it applies it when started again") {
		t.Errorf("latch approve: exit %d, want 1 and that the gateway stopped before taking it:\n%s", st.ExitCode(), scr)
	}
	if strings.Contains(scr, "has not taken it in 10 s") {
		t.Errorf("latch approve waited out its 10 s for a gateway that had stopped:\n%s", scr)
	}
	if m, _ := filepath.Glob(queued); len(m) != 1 {
		t.Error("the decision is no longer in the gateway's inbox: it would be lost")
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("the call ran %d times with its gateway stopped", n)
	}
}
