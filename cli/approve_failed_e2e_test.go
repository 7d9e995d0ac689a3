package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
	"latch/parkindex"
)

// A parked call approved with latch approve that runs and fails (its
// server answers the call with an error, or its tool returns an error
// result) is said to be approved and then failed, with the error's first
// line, and latch approve exits 1, the status of "not done" (it said
// "approved", exit 0). It is not "refused", which says the call never
// ran. So it is when latch approve reads the session logs, the index of
// parked calls being unusable (it read such a call as refused), and
// through the index. The error's escapes are shown inert and a
// credential latch knows in it is redacted. latch approvals lists each
// call while it waits, and none after.
func TestApproveACallThatRanAndFailed(t *testing.T) {
	t.Parallel()
	const token = "failed-token-for-the-test"
	const secret = "sekrit-planted-7d2a9c"
	const why = "the disk is on fire \x1b]52;c;SGVsbG8=\x07\x1b[2J " + secret + "\nsecond line"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"},
		"mcpServers": map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t),
			"args": []string{"-fail-with", why}},
			// Its token is a credential latch knows; nothing listens there.
			"remote": map[string]any{"url": "http://127.0.0.1:1/mcp", "token_env": "LATCH_TEST_SECRET"}}}, false,
		"LATCH_TEST_SECRET="+secret)
	srv := startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	fail := map[string]any{"name": "fake__rpc_fail", "arguments": map[string]any{}}
	isError := map[string]any{"name": "fake__fail", "arguments": map[string]any{}}
	res := sdkClient(t, r, map[string]any{"http": httpPlan, "clientName": "claude-e2e", "calls": []any{fail, fail, isError}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	byLogs, byIndex := callHandle(t, res, 0).InvocationID, callHandle(t, res, 1).InvocationID

	// The tool's own error result: its text, from the session's log.
	id := callHandle(t, res, 2).InvocationID
	if got := decideAsPerson(t, r, "approve", id); got.code != exitError ||
		!strings.Contains(got.screen, "approved "+id+": fake__fail of claude-e2e, by ") ||
		!strings.Contains(got.screen, ", and then it failed: it failed") {
		t.Errorf("latch approve of a call whose tool returned an error: exit %d: %s; want approved and then failed, exit 1", got.code, got.screen)
	}

	// A folder where the index's file goes: it cannot be opened.
	index := filepath.Join(r.state, parkindex.FileName)
	_ = os.Remove(index)
	if err := os.Mkdir(index, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, id string
	}{{"the session logs", byLogs}, {"the index", byIndex}} {
		list := r.run("", "approvals")
		if list.code != exitOK || !strings.Contains(list.stdout, c.id) {
			t.Fatalf("latch approvals reading %s (exit %d) does not list %s:\n%s%s", c.name, list.code, c.id, list.stdout, list.stderr)
		}
		if c.id == byLogs && !strings.Contains(list.stderr, "reading the session logs instead") {
			t.Fatalf("latch approvals did not read the session logs: %s", list.stderr)
		}
		got := decideAsPerson(t, r, "approve", c.id)
		if got.code != exitError || !strings.Contains(got.screen, "approved "+c.id+": fake__rpc_fail of claude-e2e") ||
			!strings.Contains(got.screen, ", and then it failed: ") || !strings.Contains(got.screen, "the disk is on fire ␛]52;c;SGVsbG8=␇␛[2J") ||
			strings.Contains(got.screen, "second line") || strings.Contains(got.screen, "refused") {
			t.Errorf("latch approve reading %s, of a call that ran and failed: exit %d: %s; want it approved and then failed, "+
				"the error's first line, exit 1", c.name, got.code, got.screen)
		}
		if strings.Contains(got.screen, secret) {
			t.Errorf("latch approve showed a credential: %s", got.screen)
		}
		if text, isErr := pollOnce(t, r, httpPlan, c.id); !isErr || !strings.Contains(text, "the disk is on fire") {
			t.Errorf("the client's poll of %s: %q (error %v); want the server's error", c.id, text, isErr)
		}
		if err := os.Remove(index); err != nil && c.id == byLogs {
			t.Fatal(err)
		}
	}
	if list := r.run("", "approvals"); list.code != exitOK || !strings.Contains(list.stdout, "no call waits") {
		t.Errorf("latch approvals after both were approved (exit %d):\n%s%s", list.code, list.stdout, list.stderr)
	}
}
