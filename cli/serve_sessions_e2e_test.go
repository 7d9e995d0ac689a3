package cli

// A run of latch serve is a session of its own kind: latch sessions marks
// it as a gateway with its calls, the chat does not resume it (--resume
// refuses it, --continue passes over it).

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/session"
	"latch/session/ollamatest"
)

// The built binary: a chat, then a gateway run that parks a call. latch
// sessions lists the gateway run as one, with its calls and how many
// wait; --resume of it is refused (exit 2) whether the gateway runs or
// not, and --continue goes on with the chat, though the gateway's log is
// newer.
func TestServeRunIsAGatewaySession(t *testing.T) {
	t.Parallel()
	const token = "sessions-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	r.fake.Script(ollamatest.TextTurn("Noted, the sky."), ollamatest.TextTurn("You spoke of the sky."))
	if res := r.run("", "--model", e2eModel, "-p", "the sky"); res.code != exitOK {
		t.Fatalf("the chat: exit %d", res.code)
	}
	chat := r.onlySession()

	srv := startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	res := sdkClient(t, r, map[string]any{"http": httpPlan, "clientName": "claude-e2e", "calls": []any{createAlice}})
	h := callHandle(t, res, 0)
	var gw string
	for _, id := range r.sessionIDs() {
		if id != chat {
			gw = id
		}
	}
	row := strings.Join(sessionsRow(t, r, gw), " ")
	if !strings.Contains(row, "gateway") || !strings.Contains(row, "1 call(s), 1 waiting") {
		t.Errorf("latch sessions row of the gateway run: %q, want it marked as a gateway, with 1 call waiting", row)
	}
	if row := strings.Join(sessionsRow(t, r, chat), " "); strings.Contains(row, "gateway") || !strings.Contains(row, "the sky") {
		t.Errorf("latch sessions row of the chat: %q", row)
	}
	wantRefusal := gw + " is a gateway run (latch serve); decide its calls with `latch approvals` / `latch approve ID`"
	if res := r.run("", "--resume", gw, "-p", "hi"); res.code != exitUsage || !strings.Contains(res.stderr, wantRefusal) {
		t.Errorf("--resume of the running gateway: exit %d, stderr %q", res.code, res.stderr)
	}

	// Decided, the call runs: the gateway's log is the newest.
	if ok := decideAsPerson(t, r, "approve", h.InvocationID); ok.code != exitOK {
		t.Fatalf("approve: %s", ok.screen)
	}
	if text, isErr := pollOnce(t, r, httpPlan, h.InvocationID); isErr || !strings.Contains(text, `"alice"`) {
		t.Fatalf("the poll once approved: %q", text)
	}
	if row := strings.Join(sessionsRow(t, r, gw), " "); !strings.Contains(row, "1 call(s), 0 waiting") {
		t.Errorf("latch sessions row of the gateway once decided: %q", row)
	}
	srv.interrupt(t)
	if res := r.run("", "--resume", gw, "-p", "hi"); res.code != exitUsage || !strings.Contains(res.stderr, wantRefusal) {
		t.Errorf("--resume of the stopped gateway: exit %d, stderr %q", res.code, res.stderr)
	}
	gwLog, _ := os.ReadFile(filepath.Join(r.state, gw+".jsonl"))
	res2 := r.run("", "--continue", "-p", "again")
	if res2.code != exitOK || res2.stdout != "You spoke of the sky.\n" {
		t.Fatalf("--continue: exit %d, stdout %q", res2.code, res2.stdout)
	}
	if !hasUserMessage(r.fake, "again") || len(r.lastRequest().Messages) != 3 {
		t.Errorf("--continue did not go on with the chat: %+v", r.lastRequest().Messages)
	}
	if after, _ := os.ReadFile(filepath.Join(r.state, gw+".jsonl")); string(after) != string(gwLog) {
		t.Errorf("--continue wrote to the gateway's log")
	}
}

// latch sessions counts a gateway run's calls and those still waiting
// (one past its expiry waits no more); --continue passes over gateway runs
// and sessions where nothing was said, newer as they are; no chat resumes
// a gateway run.
func TestSessionsGatewayRunAndContinue(t *testing.T) {
	getenv, dir := sessionsDir(t)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	writeLog(t, dir, "20261101-100000-chat00", 3*time.Hour,
		`"type":"user_message","turn":1,"text":"the chat's question"`)
	writeLog(t, dir, "20261101-100000-gatewy", 2*time.Hour,
		`"type":"session_started","gateway":true`,
		`"type":"tool_call","call_id":"gw_000000000001","tool":"mem__read_graph","client":"goose"`,
		`"type":"tool_call","call_id":"gw_000000000002","tool":"mem__create_entities","client":"goose"`,
		`"type":"approval_parked","approval_id":"a1","call_id":"gw_000000000002","tool":"mem__create_entities","client":"goose","expires":"`+future+`"`,
		`"type":"tool_call","call_id":"gw_000000000003","tool":"mem__create_entities","client":"goose"`,
		`"type":"approval_parked","approval_id":"a2","call_id":"gw_000000000003","tool":"mem__create_entities","client":"goose","expires":"`+past+`"`)
	writeLog(t, dir, "20261101-100000-empty0", time.Hour)

	code, out, _ := latchSessions(t, getenv)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var gwRow string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "20261101-100000-gatewy") {
			gwRow = strings.Join(strings.Fields(l), " ")
		}
	}
	if !strings.Contains(gwRow, " gateway - latch serve: 3 call(s), 1 waiting (latch approvals)") {
		t.Errorf("the gateway run's row: %q\n%s", gwRow, out)
	}
	if latest, err := session.Latest(dir); err != nil || latest != "20261101-100000-chat00" {
		t.Errorf("--continue would take %q (%v), want the chat", latest, err)
	}
	if err := session.Resumable(dir, "20261101-100000-gatewy"); err == nil || !strings.Contains(err.Error(), "is a gateway run") {
		t.Errorf("the gateway run is resumable: %v", err)
	}
	// Whatever path opens it (--resume ID --approve A1 included), a
	// gateway run does not become a chat whose approvals can be decided.
	if _, _, err := session.Resume(session.Options{}, dir, "20261101-100000-gatewy"); !errors.Is(err, session.ErrGatewayRun) {
		t.Errorf("session.Resume of the gateway run: %v, want ErrGatewayRun", err)
	}
}
