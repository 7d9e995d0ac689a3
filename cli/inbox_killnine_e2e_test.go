package cli

// latch inbox deciding calls in bulk while the gateway (latch serve) is
// killed with SIGKILL, at sampled moments: right after the Enter that
// confirms a decision, after the k-th decision file lands in the
// gateway's inbox folder, after the k-th line the gateway writes to its
// session log ($LATCH_TEST_CRASH_AFTER_LINES). latch serve is started
// again on the same state folder, at once or only after the inbox has
// said what it could not decide. Then every call is checked against what
// the inbox said of it and against server-memory's witness (every
// tools/call latch sent it, with the call's id as its progress token).

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// killRig is the gateway the inbox decides through, killed and started
// again, and what the inbox said of each call.
type killRig struct {
	t     *testing.T
	r     *promptRig
	srv   *served
	token string
	// parked are the calls whose client got a handle, by id: what the
	// round meant for it ("yes", "no" or "keep").
	parked map[string]string
	names  map[string]string // the entity each call writes, by id
	// said is what the inbox said of each call it was asked to decide:
	// "approved" or "rejected" (applied), or the line saying why not.
	said  map[string]string
	asked map[string]string // the decision asked: "approved" or "rejected"
}

// up starts latch serve when it is not running (it was killed).
func (k *killRig) up() {
	k.t.Helper()
	select {
	case <-k.srv.exited:
		k.srv = startServeHTTP(k.t, k.r, k.token)
	default:
	}
}

// restart stops latch serve (an interrupt) and starts it with env.
func (k *killRig) restart(env []string) {
	k.t.Helper()
	k.srv.interrupt(k.t)
	k.srv = startServeHTTPEnv(k.t, k.r, env, k.token)
}

// kill kills latch serve (SIGKILL) and waits until it is gone.
func (k *killRig) kill() {
	k.srv.kill(k.t) // this test's own child, by its pid
}

// alive says whether latch serve runs.
func (k *killRig) alive() bool {
	select {
	case <-k.srv.exited:
		return false
	default:
		return true
	}
}

// park has a client named client park n calls that write the entity
// name, and returns their ids (those whose handle came back).
func (k *killRig) park(client, name, meant string, n int) []string {
	k.t.Helper()
	var calls []any
	for range n {
		calls = append(calls, createEntity(name))
	}
	res := sdkClient(k.t, k.r, map[string]any{"http": map[string]any{"url": k.srv.url, "token": k.token},
		"clientName": client, "calls": calls})
	var ids []string
	for i := range res.Calls {
		if res.Calls[i].Result == nil {
			continue
		}
		var h handle
		b, _ := json.Marshal(res.Calls[i].Result.StructuredContent)
		if json.Unmarshal(b, &h) == nil && h.InvocationID != "" {
			k.parked[h.InvocationID], k.names[h.InvocationID] = meant, name
			ids = append(ids, h.InvocationID)
		}
	}
	return ids
}

// killAt is when a batch's kill comes.
type killAt struct {
	keypress bool // right after the Enter
	files    int  // after this many decision files were seen (> 0)
	now      bool // latch serve started again at once, not after the inbox reported
}

var (
	outcomeRE  = regexp.MustCompile(`(approved|rejected) (\d+) of (\d+) calls?, by`)
	notDoneRE  = regexp.MustCompile(`(gw_[0-9A-Za-z]+) \(mem__create_entities\): not (approved|rejected): `)
	stepIDRE   = regexp.MustCompile(`(gw_[0-9A-Za-z]+)\s+mem__create_entities of `)
	leftOutRE  = regexp.MustCompile(`(gw_[0-9A-Za-z]+): left out: `)
	waitingRE  = regexp.MustCompile(`latch inbox · (\d+) calls? waiting`)
	shownRE    = regexp.MustCompile(`filter "[^"]*": (\d+) shown`)
	killReason = "killed gateway test"
)

// decide opens an inbox, filters it to client, marks the calls like the
// first (a), approves or rejects them, killing latch serve as at says
// (nil: no kill), and records what the inbox said of each call.
func (k *killRig) decide(client string, want int, approve bool, at *killAt) {
	t := k.t
	t.Helper()
	tm := k.r.startInbox(220, 60)
	defer func() {
		tm.typeKeys("q")
		if st := tm.waitExit(time.Minute); st == nil || st.ExitCode() != 0 {
			t.Errorf("latch inbox after q: %v", st)
		}
	}()
	tm.waitScreen(t, time.Minute, "the inbox read", func(s string) bool { return waitingRE.MatchString(s) })
	tm.typeKeys("/")
	tm.waitScreen(t, time.Minute, "the filter open", func(s string) bool { return strings.Contains(s, "filter (client, tool or server)") })
	tm.typeKeys(client + keyEnter)
	tm.waitScreen(t, time.Minute, "the filter kept", func(s string) bool {
		m := shownRE.FindStringSubmatch(s)
		return m != nil && m[1] == strconv.Itoa(want) && !strings.Contains(s, "filter (client")
	})
	tm.typeKeys("a")
	tm.waitScreen(t, time.Minute, "the calls marked", func(s string) bool {
		return strings.Contains(s, fmt.Sprintf("marked %d %s like this", want, plural(want, "call", "calls")))
	})
	verb, word, key := "approves", "approved", "y"
	if !approve {
		verb, word, key = "rejects", "rejected", "n"
	}
	tm.typeKeys(key)
	keys := "enter " + verb + " " + plural(want, "it", "all "+strconv.Itoa(want))
	scr := tm.waitScreen(t, time.Minute, "the step, or the calls left out", func(s string) bool {
		return strings.Contains(s, keys) || leftOutRE.MatchString(unwrapped(s))
	})
	if !strings.Contains(scr, keys) {
		// The inbox saw the gateway stopped: nothing is sent.
		for _, m := range leftOutRE.FindAllStringSubmatch(unwrapped(scr), -1) {
			k.asked[m[1]], k.said[m[1]] = word, "left out"
		}
		t.Logf("%s: left out, its gateway not running:\n%s", client, dumpScreen(scr))
		return
	}
	var ids []string
	for _, m := range stepIDRE.FindAllStringSubmatch(scr, -1) {
		ids = append(ids, m[1])
	}
	if len(ids) != want {
		t.Fatalf("the step names %d calls, want %d:\n%s", len(ids), want, dumpScreen(scr))
	}
	if !approve {
		tm.typeKeys(killReason)
		tm.waitScreen(t, time.Minute, "the reason typed", func(s string) bool { return strings.Contains(s, killReason+"█") })
	}
	var killed atomic.Bool
	stop := make(chan struct{})
	watched := make(chan struct{})
	if at != nil && at.files > 0 {
		dir := filepath.Join(k.r.state, "inbox", k.session())
		go func() {
			defer close(watched)
			seen := map[string]bool{}
			for len(seen) < at.files {
				select {
				case <-stop:
					return
				default:
				}
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
						seen[e.Name()] = true
					}
				}
				time.Sleep(time.Millisecond)
			}
			_ = k.srv.cmd.Process.Kill() // this test's own child, by its pid
			killed.Store(true)
		}()
	} else {
		close(watched)
	}
	tm.typeKeys(keyEnter)
	if at != nil && at.keypress {
		k.kill()
		killed.Store(true)
	}
	if at != nil && at.now && at.keypress {
		k.up()
	}
	scr = tm.waitScreen(t, time.Minute, "what the inbox says of its decision", func(s string) bool {
		m := outcomeRE.FindStringSubmatch(unwrapped(s))
		return m != nil && m[1] == word && m[3] == strconv.Itoa(want) && !strings.Contains(s, "deciding ")
	})
	close(stop)
	<-watched
	if at != nil && at.files > 0 && !killed.Load() {
		k.kill() // the files went faster than they were seen: killed now, after the inbox reported
		killed.Store(true)
	}
	if killed.Load() {
		t.Logf("%s: latch serve killed (%+v)", client, *at)
	}
	text := unwrapped(scr)
	m := outcomeRE.FindStringSubmatch(text)
	done, _ := strconv.Atoi(m[2])
	notDone := map[string]string{}
	// Each line not decided runs to the next one, or to the summary after
	// them.
	rest := text[:strings.Index(text, m[0])]
	spans := notDoneRE.FindAllStringSubmatchIndex(rest, -1)
	for j, n := range spans {
		end := len(rest)
		if j+1 < len(spans) {
			end = spans[j+1][0]
		}
		id, verb := rest[n[2]:n[3]], rest[n[4]:n[5]]
		if verb != word {
			t.Errorf("the inbox says %s was not %s, having been asked to %s it", id, verb, word)
		}
		notDone[id] = strings.TrimSpace(rest[n[1]:end])
	}
	if done+len(notDone) != want {
		t.Errorf("the inbox says %d of %d %s and gives %d reasons for the others:\n%s", done, want, word, len(notDone), dumpScreen(scr))
	}
	for _, id := range ids {
		k.asked[id] = word
		if why, ok := notDone[id]; ok {
			k.said[id] = why
		} else {
			k.said[id] = word
		}
	}
	t.Logf("%s: %s", client, text[strings.Index(text, m[0]):])
	if len(notDone) > 0 {
		t.Logf("%s: %v", client, notDone)
	}
}

// session is the id of the gateway's session (latch serve takes up the
// same one each time it starts).
func (k *killRig) session() string {
	k.t.Helper()
	return k.r.onlySession()
}

// logLines is how many lines the gateway's session log holds.
func (k *killRig) logLines() int {
	k.t.Helper()
	return len(readLines(k.t, filepath.Join(k.r.state, k.session()+".jsonl")))
}

// Calls parked through latch serve are marked in latch inbox ("like
// this") and approved or rejected in bulk while latch serve is killed
// (SIGKILL) at sampled moments, then started again on the same state
// folder, at once or after the inbox reported. None is lost, none
// doubled: every call the inbox said it approved ran exactly once (or,
// killed while it ran, is reported in doubt and never ran twice), every
// one it said it rejected never ran and its client is told so, a
// decision it said was sent and not yet taken applies once latch serve
// runs again, every call it said it did not decide, and every call never
// decided, still waits, in the log, in latch approvals and in an inbox
// left open through every kill.
func TestInboxKillNineWithDecisionsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("kills latch serve a dozen times under the inbox")
	}
	t.Parallel()
	const token = "inbox-kill-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "1s"}}, true)
	k := &killRig{t: t, r: r, token: token, parked: map[string]string{}, names: map[string]string{},
		said: map[string]string{}, asked: map[string]string{}}
	k.srv = startServeHTTP(t, r, token)
	watcher := r.startInbox(120, 30) // open through every kill, to the end
	seed := time.Now().UnixNano()
	if v, err := strconv.ParseInt(os.Getenv("LATCH_INBOX_KILL_SEED"), 10, 64); err == nil {
		seed = v // a failed run's kill points, again
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("kill points sampled with seed %d (LATCH_INBOX_KILL_SEED=%d samples them again)", seed, seed)

	const yes, no, keep = 3, 2, 1
	// round parks yes calls to approve, no calls to reject and keep calls
	// to leave waiting, then decides them in two inboxes' batches, each
	// with its own kill (nil: none). It says how many lines the parking
	// wrote, or -1 when latch serve died before every call was parked.
	round := func(i int, approveAt, rejectAt *killAt) int {
		name := fmt.Sprintf("kr%02d", i)
		before := k.logLines()
		ys := k.park(name+"y", name+"-yes", "yes", yes)
		ns := k.park(name+"n", name+"-no", "no", no)
		ks := k.park(name+"k", name+"-keep", "keep", keep)
		if len(ys) != yes || len(ns) != no || len(ks) != keep {
			t.Logf("%s: latch serve died while the calls parked (%d, %d, %d handles)", name, len(ys), len(ns), len(ks))
			return -1
		}
		parking := k.logLines() - before
		k.up()
		k.decide(name+"y", yes, true, approveAt)
		k.up()
		k.decide(name+"n", no, false, rejectAt)
		return parking
	}

	// Round 0, no kill: how many lines a start writes, the parking, and
	// the decisions once their calls ran.
	before := k.logLines()
	k.restart(nil)
	starting := k.logLines() - before
	parking := round(0, nil, nil)
	if parking < 0 {
		t.Fatal("round 0 failed with no kill")
	}
	deciding := 0
	mcptestutil.WaitFor(t, time.Minute, "round 0's decisions carried out", func() bool {
		results := 0
		for _, l := range readLines(t, filepath.Join(r.state, k.session()+".jsonl")) {
			if strings.Contains(l, `"type":"tool_result"`) {
				results++
			}
		}
		deciding = k.logLines() - before - starting - parking
		return results >= yes+no
	})
	t.Logf("a start writes %d lines, parking %d calls %d, deciding them %d", starting, yes+no+keep, parking, deciding)

	const rounds = 10
	for i := 1; i <= rounds; i++ {
		var a, b *killAt
		armed := false
		switch i % 5 {
		case 0, 1: // after the n-th log line of this start: in the parking, the approvals or the rejections
			n := starting + 1 + rng.IntN(parking+deciding)
			if rng.IntN(3) > 0 { // mostly among the decisions
				n = starting + parking + 1 + rng.IntN(deciding)
			}
			k.restart([]string{fmt.Sprintf("LATCH_TEST_CRASH_AFTER_LINES=%d", n)})
			armed = true
			t.Logf("round %d: latch serve is killed after line %d of its start", i, n)
		case 2:
			a = &killAt{keypress: true, now: rng.IntN(2) == 0}
		case 3:
			a = &killAt{files: 1 + rng.IntN(yes)}
			if rng.IntN(2) == 0 {
				a, b = nil, &killAt{files: 1 + rng.IntN(no)}
			}
		case 4:
			b = &killAt{keypress: true, now: rng.IntN(2) == 0}
		}
		srv := k.srv
		round(i, a, b)
		select {
		case <-srv.exited:
		default:
			if armed {
				t.Logf("round %d: latch serve was not killed (the round wrote fewer lines)", i)
			}
		}
		k.up()
		if armed && k.alive() {
			k.restart(nil) // disarmed
		}
	}

	// Started again, once more, after every kill: the decisions left in
	// the inbox folder are taken, the approved calls run.
	k.restart(nil)
	inbox := filepath.Join(r.state, "inbox", k.session())
	mcptestutil.WaitFor(t, time.Minute, "the decisions left in the gateway's inbox taken", func() bool {
		entries, _ := os.ReadDir(inbox)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".json") {
				return false
			}
		}
		return true
	})
	k.check(watcher)
}
