package cli

// What the kill test of latch inbox (inbox_killnine_e2e_test.go) checks
// at its end: every call against what the inbox said of it, the session
// log, the clients' polls and server-memory's witness.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// memRuns counts, by latch's call id, the tools/call requests latch sent
// to server-memory: the witness of which calls ran.
func (r *promptRig) memRuns() map[string]int {
	r.t.Helper()
	runs := map[string]int{}
	f, err := os.Open(r.memIn)
	if errors.Is(err, fs.ErrNotExist) {
		return runs
	}
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Method string
			Params struct {
				Meta struct {
					ProgressToken any `json:"progressToken"`
				} `json:"_meta"`
			}
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method == "tools/call" {
			runs[fmt.Sprint(m.Params.Meta.ProgressToken)]++
		}
	}
	return runs
}

// loggedDecisions are the decisions the session logs hold, by call id
// ("approved", "rejected", …), the calls parked, and those allowed.
func loggedDecisions(t *testing.T, dir string) (decided map[string]string, parked, allowed map[string]bool) {
	t.Helper()
	decided, parked, allowed = map[string]string{}, map[string]bool{}, map[string]bool{}
	for _, f := range logFiles(t, dir) {
		for _, line := range readLines(t, f) {
			var e struct {
				Type     string `json:"type"`
				CallID   string `json:"call_id"`
				Decision string `json:"decision"`
			}
			if json.Unmarshal([]byte(line), &e) != nil {
				continue
			}
			switch e.Type {
			case "approval_parked":
				parked[e.CallID] = true
			case "approval_resolved":
				if old, ok := decided[e.CallID]; ok {
					t.Errorf("call %s decided twice in the log: %s, then %s", e.CallID, old, e.Decision)
				}
				decided[e.CallID] = e.Decision
			case "permission":
				if e.Decision == "allowed" {
					allowed[e.CallID] = true
				}
			}
		}
	}
	return decided, parked, allowed
}

// polled is what a client's latch_await_decision says of a call.
type polled struct {
	text  string
	isErr bool
}

// pollAll polls each call once, from one client.
func (k *killRig) pollAll(ids []string) map[string]polled {
	k.t.Helper()
	var calls []any
	for _, id := range ids {
		calls = append(calls, map[string]any{"name": "latch_await_decision", "arguments": map[string]any{"invocation_id": id}})
	}
	out := map[string]polled{}
	if len(calls) == 0 {
		return out
	}
	res := sdkClient(k.t, k.r, map[string]any{"http": map[string]any{"url": k.srv.url, "token": k.token}, "calls": calls})
	for i, id := range ids {
		text, isErr := callText(k.t, res, i)
		out[id] = polled{text, isErr}
	}
	return out
}

// check holds every call to what the inbox said of it, the log and the
// witness.
func (k *killRig) check(watcher *ptyTerm) {
	t := k.t
	t.Helper()
	r := k.r
	decided, parked, allowed := loggedDecisions(t, r.state)
	var ids []string
	for id := range parked {
		ids = append(ids, id)
	}
	polls := k.pollAll(ids)
	// An approved call taken up by the restart runs now: poll again until
	// it has an outcome.
	mcptestutil.WaitFor(t, time.Minute, "every decided call's outcome", func() bool {
		var again []string
		for id, p := range polls {
			if decided[id] != "" && strings.Contains(p.text, "awaiting_approval") {
				again = append(again, id)
			}
		}
		for id, p := range k.pollAll(again) {
			polls[id] = p
		}
		return len(again) == 0
	})
	runs := r.memRuns()
	for id, n := range runs {
		if n > 1 {
			t.Errorf("call %s ran %d times", id, n)
		}
		if !allowed[id] {
			t.Errorf("call %s ran with no \"allowed\" in the log", id)
		}
	}
	waiting, inDoubt, inDoubtRan := 0, 0, 0
	for _, id := range ids {
		asked, said, got, p := k.asked[id], k.said[id], decided[id], polls[id]
		switch {
		case asked == "":
			// Never decided here: it waits.
			if got != "" || runs[id] != 0 {
				t.Errorf("call %s (%s), never decided by the inbox, is %q in the log and ran %d times", id, k.parked[id], got, runs[id])
			}
		case said == asked, strings.HasPrefix(said, "sent, but its gateway ") && strings.Contains(said, "; it applies it when"):
			// Applied, or said to apply once latch serve takes it.
			if got != asked {
				t.Errorf("call %s: the inbox said %q (asked: %s), the log says %q", id, said, asked, got)
				continue
			}
			switch {
			case asked == "rejected" && (runs[id] != 0 || !p.isErr || !strings.Contains(p.text, killReason)):
				t.Errorf("call %s, rejected: ran %d times, its poll says %q (error %v)", id, runs[id], p.text, p.isErr)
			case asked == "approved" && p.isErr && strings.Contains(p.text, "in_doubt"):
				// Killed after its "allowed" and before its result: it ran
				// at most once (above), and never runs again by itself.
				inDoubt++
				inDoubtRan += runs[id]
			case asked == "approved" && (runs[id] != 1 || p.isErr || strings.Contains(p.text, "awaiting_approval")):
				t.Errorf("call %s, approved: ran %d times, its poll says %q (error %v)", id, runs[id], p.text, p.isErr)
			}
		default:
			// The inbox said it did not decide it: it still waits.
			if got != "" || runs[id] != 0 {
				t.Errorf("call %s: the inbox said %q, yet the log says %q and it ran %d times", id, said, got, runs[id])
			}
		}
		if got == "" {
			waiting++
			if !strings.Contains(p.text, "awaiting_approval") {
				t.Errorf("call %s, undecided in the log, polls as %q", id, p.text)
			}
		}
	}
	for id := range k.parked {
		if !parked[id] {
			t.Errorf("call %s's client got a handle, and the log has no parked call of that id", id)
		}
	}
	want := fmt.Sprintf("%d %s waiting", waiting, plural(waiting, "call", "calls"))
	watcher.waitScreen(t, time.Minute, "the inbox open through the kills: "+want, func(s string) bool {
		return strings.Contains(s, want) && !strings.Contains(s, "stopped")
	})
	list := r.run("", "approvals")
	for id := range parked {
		if listed := strings.Contains(list.stdout, id); listed != (decided[id] == "") {
			t.Errorf("latch approvals lists %s: %v; the log has it decided: %q", id, listed, decided[id])
		}
	}
	n := map[string]int{}
	for id := range k.asked {
		n[k.said[id]]++
	}
	t.Logf("%d calls parked, %d still waiting, %d in doubt (%d of them reached server-memory); what the inbox said: %v",
		len(parked), waiting, inDoubt, inDoubtRan, n)
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
