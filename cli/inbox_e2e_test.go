package cli

// End-to-end tests of latch inbox: the built binary in a real
// pseudo-terminal, beside a latch serve whose calls the TypeScript SDK
// client parks.

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// startInbox runs latch inbox in a new terminal of cols×rows, with the
// rig's environment.
func (r *promptRig) startInbox(cols, rows int) *ptyTerm {
	r.t.Helper()
	return startLatch(r.t, r.bin, ptyOptions{Rows: rows, Cols: cols, Host: r.fake.Host(),
		Args: []string{"--config", r.cfg, "inbox"}, Env: r.env})
}

// A call parked through latch serve after the inbox opened appears in it
// live, with its client, tool and arguments; y, then Enter after the
// step's pause, approves it there: the client's poll gets server-memory's
// real result, the write happened exactly once, and the call leaves the
// list.
func TestInboxApprovesACallParkedLive(t *testing.T) {
	const token = "inbox-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	tm := r.startInbox(100, 30)
	tm.waitScreen(t, time.Minute, "the empty inbox", func(s string) bool { return strings.Contains(s, "0 calls waiting") })

	res := sdkClient(t, r, map[string]any{"http": httpPlan, "clientName": "claude-e2e", "calls": []any{createAlice}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	h := callHandle(t, res, 0)
	scr := tm.waitScreen(t, time.Minute, "the parked call in the inbox", func(s string) bool {
		return strings.Contains(s, "1 call waiting") && strings.Contains(s, h.InvocationID)
	})
	for _, want := range []string{"claude-e2e", "mem__create_entities", `"name": "alice"`, `"likes tea"`, "ask mode"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the inbox lacks %q:\n%s", want, dumpScreen(scr))
		}
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Fatalf("the call ran before anyone approved it (%d times)", n)
	}
	tm.typeKeys("y")
	tm.waitScreen(t, time.Minute, "the step, past its pause", func(s string) bool {
		return strings.Contains(s, "Approve 1 call?") && strings.Contains(s, "enter approves it")
	})
	tm.typeKeys(keyEnter)
	scr = tm.waitScreen(t, time.Minute, "the approval applied", func(s string) bool {
		return strings.Contains(s, "approved 1 of 1 call") && strings.Contains(s, "0 calls waiting")
	})
	if strings.Contains(scr, "not approved") {
		t.Errorf("the inbox says the approval failed:\n%s", dumpScreen(scr))
	}
	polled := sdkClient(t, r, awaitPlan(httpPlan, h.InvocationID))
	for i := range 2 {
		if text, isErr := callText(t, polled, i); isErr || !strings.Contains(text, `"alice"`) {
			t.Errorf("poll %d after the approval: %q", i, text)
		}
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
	if b, _ := os.ReadFile(r.memFile); strings.Count(string(b), `"alice"`) != 1 {
		t.Errorf("the memory file does not hold alice exactly once:\n%s", b)
	}
	tm.typeKeys("q")
	if st := tm.waitExit(time.Minute); st == nil || st.ExitCode() != 0 {
		t.Errorf("latch inbox after q: %v", st)
	}
}

// latch inbox without a terminal (an agent's shell tool, a pipe) decides
// nothing: it exits with status 2 and one line saying why.
func TestInboxWithoutTerminalIsRefused(t *testing.T) {
	r := newPromptRig(t, nil, false)
	res := r.run("y\r", "inbox")
	if res.code != exitUsage || !strings.Contains(res.stderr, "needs a terminal") || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
		t.Errorf("latch inbox from a pipe: exit %d, stderr %q; want 2 and one line saying why", res.code, res.stderr)
	}
}

// Two people at two inboxes mark the same calls with a ("like this": the
// two calls with the same tool and arguments, not the third) and decide
// them at once, one approving, one rejecting: each call is decided once,
// by whoever came first; the approved ones ran exactly once, the rejected
// never; each screen says how many of its decisions applied and, for the
// others, that someone else decided first. The third call still waits.
func TestInboxTwoInboxesDecideCallsLikeThis(t *testing.T) {
	const token = "inbox-two-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	httpPlan := map[string]any{"url": srv.url, "token": token}
	res := sdkClient(t, r, map[string]any{"http": httpPlan, "clientName": "claude-e2e", "calls": []any{
		createEntity("twin"), createEntity("twin"), createEntity("solo")}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	a, b := r.startInbox(100, 30), r.startInbox(100, 30)
	for _, tm := range []*ptyTerm{a, b} {
		tm.waitScreen(t, time.Minute, "three calls", func(s string) bool { return strings.Contains(s, "3 calls waiting") })
		tm.typeKeys("a")
		tm.waitScreen(t, time.Minute, "two marked", func(s string) bool { return strings.Contains(s, "marked 2 calls like this") })
	}
	a.typeKeys("y")
	b.typeKeys("n")
	a.waitScreen(t, time.Minute, "A's step", func(s string) bool { return strings.Contains(s, "enter approves all 2") })
	b.waitScreen(t, time.Minute, "B's step", func(s string) bool { return strings.Contains(s, "enter rejects all 2") })
	a.typeKeys(keyEnter)
	b.typeKeys(keyEnter)
	count := func(tm *ptyTerm, word string) int {
		scr := tm.waitScreen(t, time.Minute, "the outcome", func(s string) bool {
			return strings.Contains(unwrapped(s), word+" ") && strings.Contains(s, "1 call waiting")
		})
		var n int
		if _, err := fmt.Sscanf(unwrapped(scr)[strings.Index(unwrapped(scr), word+" "):], word+" %d of 2", &n); err != nil {
			t.Fatalf("no count of %s calls: %v\n%s", word, err, dumpScreen(scr))
		}
		if n < 2 && !strings.Contains(unwrapped(scr), "it was already") && !strings.Contains(unwrapped(scr), "on its way") {
			t.Errorf("%d of 2 %s, and the screen does not say why not:\n%s", n, word, dumpScreen(scr))
		}
		return n
	}
	approved, rejected := count(a, "approved"), count(b, "rejected")
	if approved+rejected != 2 {
		t.Errorf("%d approved and %d rejected of 2 calls: want each decided once", approved, rejected)
	}
	mcptestutil.WaitFor(t, time.Minute, "the approved calls run", func() bool { return r.memCalls("create_entities") >= approved })
	if n := r.memCalls("create_entities"); n != approved {
		t.Errorf("server-memory got %d create_entities calls, want %d (one per approved call)", n, approved)
	}
	if list := r.run("", "approvals"); !strings.Contains(list.stdout, "solo") || strings.Contains(list.stdout, "twin") {
		t.Errorf("latch approvals after the decisions:\n%s", list.stdout)
	}
}

// A call's long arguments are all readable in an 80×24 inbox: every key
// is reached by scrolling (pgdn), the row under them counting the lines;
// a long value shows both its ends with the count left out, and f shows
// it whole, down to its last characters.
func TestInboxLongArgumentsAllReadable(t *testing.T) {
	const token = "inbox-long-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s"}}, true)
	srv := startServeHTTP(t, r, token)
	var obs []any
	for i := range 30 {
		obs = append(obs, fmt.Sprintf("obs-%02d", i))
	}
	obs = append(obs, "BEGIN"+strings.Repeat("y", 2000)+"THE-END")
	call := map[string]any{"name": "mem__create_entities", "arguments": map[string]any{
		"entities": []any{map[string]any{"name": "long", "entityType": "person", "observations": obs}}}}
	res := sdkClient(t, r, map[string]any{"http": map[string]any{"url": srv.url, "token": token}, "clientName": "claude-e2e",
		"calls": []any{call}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	tm := r.startInbox(80, 24)
	tm.waitScreen(t, time.Minute, "the call, its first keys", func(s string) bool {
		return strings.Contains(s, "1 call waiting") && strings.Contains(s, `"entityType": "person"`) && strings.Contains(s, "lines 1-")
	})
	seen := map[string]bool{}
	look := func(scr string) {
		for i := range 30 {
			if k := fmt.Sprintf("obs-%02d", i); strings.Contains(scr, k) {
				seen[k] = true
			}
		}
		if strings.Contains(scr, "THE-END") && strings.Contains(scr, "characters)") {
			seen["ends"] = true
		}
	}
	scrollAll(t, tm, look)
	if len(seen) != 31 {
		t.Fatalf("scrolling showed %d of the 30 observations and the long value's ends:\n%s", len(seen), dumpScreen(tm.screen()))
	}
	tm.typeKeys("f")
	tm.waitScreen(t, time.Minute, "every value whole", func(s string) bool {
		return !strings.Contains(s, "elided in the middle") && strings.Contains(s, "lines ")
	})
	end := false
	scrollAll(t, tm, func(scr string) { end = end || strings.Contains(scr, "yTHE-END") })
	if !end {
		t.Errorf("with f, the long value's end never showed:\n%s", dumpScreen(tm.screen()))
	}
}

// scrollAll pages down the selected call's arguments to their last line,
// giving look each screen on the way.
func scrollAll(t *testing.T, tm *ptyTerm, look func(string)) {
	t.Helper()
	linesRow := func(s string) string {
		for _, row := range screenRows(s) {
			if strings.HasPrefix(row, "lines ") {
				return strings.TrimSpace(row)
			}
		}
		return ""
	}
	for range 200 {
		scr := tm.screen()
		look(scr)
		var a, b, n int
		if _, err := fmt.Sscanf(linesRow(scr), "lines %d-%d of %d", &a, &b, &n); err != nil || b == n {
			return
		}
		before := linesRow(scr)
		tm.typeKeys("\x1b[6~") // PgDn
		tm.waitScreen(t, time.Minute, "the arguments scrolled", func(s string) bool { return linesRow(s) != before })
	}
}
