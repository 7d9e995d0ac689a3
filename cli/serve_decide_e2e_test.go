package cli

// End-to-end tests of deciding a gateway's parked call: latch approve and
// latch reject need a person at a terminal, who sees the call and types
// the end of its id. They run the built binary in a real pseudo-terminal
// (startLatch), as a person's shell would.

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// decideQuestion is the end of the question latch approve/reject asks.
const decideQuestion = "then Enter (anything else decides nothing):"

// decideRun is how latch approve/reject ended in a terminal: the screen
// (stdout and stderr both) and the exit status.
type decideRun struct {
	screen string // the screen's rows joined with spaces (see unwrapped)
	code   int
	asked  bool // the question was shown
}

// startDecide runs latch --config CFG ARGS in a new terminal, with the
// rig's environment.
func (r *promptRig) startDecide(typeahead string, args ...string) *ptyTerm {
	r.t.Helper()
	return startLatch(r.t, r.bin, ptyOptions{Rows: 40, Cols: 200, Host: r.fake.Host(),
		Args: append([]string{"--config", r.cfg}, args...), Env: r.env, Typeahead: typeahead})
}

// answerDecide waits until tm asks for the confirmation (or exits without
// asking), types answer and Enter if it asked, and waits for the exit.
func answerDecide(t *testing.T, tm *ptyTerm, answer string) decideRun {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	asked := func() bool { return strings.Contains(unwrapped(tm.screen()), decideQuestion) }
wait:
	for !asked() {
		select {
		case <-tm.exited:
			break wait
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("latch approve/reject neither asked nor exited within a minute; screen:\n%s", dumpScreen(tm.screen()))
		}
	}
	select {
	case <-tm.exited:
	default:
		tm.typeKeys(answer + keyEnter)
	}
	st := tm.waitExit(time.Minute)
	if st == nil {
		t.Fatalf("latch approve/reject did not exit after the answer; screen:\n%s", dumpScreen(tm.screen()))
	}
	tm.drain(5 * time.Second)
	res := decideRun{screen: unwrapped(tm.screen()), code: st.ExitCode(), asked: asked()}
	t.Logf("latch approve/reject in a terminal → exit %d: %s", res.code, res.screen)
	return res
}

// idTail is what a person types to confirm a decision on id.
func idTail(id string) string { return id[len(id)-4:] }

// decideAsPerson runs `latch approve ID` (verb "approve") or `latch reject
// ID [extra…]` in a terminal, as a person would: it reads the question and
// types the last 4 characters of the id.
func decideAsPerson(t *testing.T, r *promptRig, verb, id string, extra ...string) decideRun {
	t.Helper()
	return answerDecide(t, r.startDecide("", append([]string{verb, id}, extra...)...), idTail(id))
}

// latch approve run by a program without a terminal (an agent's shell
// tool: stdin a pipe, or /dev/null) is refused with exit 2 and a line
// saying why; the call stays parked, never runs, and a person can still
// approve it.
func TestServeApproveWithoutTerminalIsRefused(t *testing.T) {
	t.Parallel()
	r, httpPlan, h := parkOverHTTP(t)
	for _, verb := range []string{"approve", "reject"} {
		res := r.run(idTail(h.InvocationID)+"\n", verb, h.InvocationID)
		if res.code != exitUsage || !strings.Contains(res.stderr, "input is not a terminal") ||
			strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
			t.Errorf("latch %s with a pipe for input: exit %d, stderr %q; want 2 and one line saying why", verb, res.code, res.stderr)
		}
	}
	// stdin /dev/null, as a shell tool without input gives.
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(r.bin, "--config", r.cfg, "approve", h.InvocationID)
	cmd.Env, cmd.Dir, cmd.Stdin = r.env, r.cwd, null
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(string(out), "input is not a terminal") {
		t.Errorf("latch approve with /dev/null for input: exit %d (%v): %s", code, err, out)
	}
	if text, _ := pollOnce(t, r, httpPlan, h.InvocationID); !strings.Contains(text, "awaiting_approval") {
		t.Errorf("the poll after the refused approvals: %q, want the call still waiting", text)
	}
	if list := r.run("", "approvals"); !strings.Contains(list.stdout, h.InvocationID) {
		t.Errorf("latch approvals no longer lists the call:\n%s", list.stdout)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("a call approved without a terminal reached server-memory %d times", n)
	}
	if ok := decideAsPerson(t, r, "approve", h.InvocationID); ok.code != exitOK {
		t.Errorf("a person's approval after the refusals: exit %d: %s", ok.code, ok.screen)
	}
}

// In a terminal, latch approve shows the call (client, tool, arguments)
// and decides nothing until the end of the id is typed after the
// question: keys typed before it appeared are thrown away, and a wrong
// answer decides nothing (exit 1).
func TestServeApproveNeedsTheIDTypedAfterTheQuestion(t *testing.T) {
	t.Parallel()
	r, httpPlan, h := parkOverHTTP(t)
	tail := idTail(h.InvocationID)

	// The right answer typed ahead, then a wrong one after the question.
	ahead := answerDecide(t, r.startDecide(tail+keyEnter, "approve", h.InvocationID), "nope")
	if !ahead.asked || ahead.code != exitError || !strings.Contains(ahead.screen, "nothing was decided") {
		t.Errorf("typed ahead, then a wrong answer: exit %d (asked %v): %s", ahead.code, ahead.asked, ahead.screen)
	}
	for _, want := range []string{h.InvocationID, "claude-e2e", "mem__create_entities", `"name": "alice"`, `"likes tea"`, "expires in"} {
		if !strings.Contains(ahead.screen, want) {
			t.Errorf("the question does not show %q: %s", want, ahead.screen)
		}
	}
	if text, _ := pollOnce(t, r, httpPlan, h.InvocationID); !strings.Contains(text, "awaiting_approval") {
		t.Fatalf("the poll after a wrong answer: %q, want the call still waiting", text)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Fatalf("the call ran after a wrong answer (%d times)", n)
	}
	// The right answer, in capitals: it counts.
	ok := answerDecide(t, r.startDecide("", "approve", h.InvocationID), strings.ToUpper(tail))
	if ok.code != exitOK || !strings.Contains(ok.screen, "approved "+h.InvocationID) {
		t.Fatalf("the right answer: exit %d: %s", ok.code, ok.screen)
	}
	if text, isErr := pollOnce(t, r, httpPlan, h.InvocationID); isErr || !strings.Contains(text, `"alice"`) {
		t.Errorf("the poll once approved: %q (error %v), want server-memory's result", text, isErr)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
}
