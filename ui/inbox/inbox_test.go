package inbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/ui/notice"
)

// TestInboxCallAppearsAndLeavesLive: a call parked after the inbox
// opened shows at its next read and rings the terminal once; decided
// elsewhere (latch approve's way: a decision in the gateway's inbox), it
// leaves the list.
func TestInboxCallAppearsAndLeavesLive(t *testing.T) {
	g := newGateway(t, "")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 100, 30)
	s.m.o.Notice = notice.OSC9
	containsAll(t, s.m.View(), "0 calls waiting", "no call waits for approval")
	id := g.park("claude-code", "hello")
	v := s.readUntil("the parked call listed", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	containsAll(t, v, "claude-code", "notes__write_note", "approve mode", id, `"text": "hello"`)
	s.read()
	if len(s.rung) != 1 || !strings.Contains(s.rung[0], "\x1b]9;") || !strings.Contains(s.rung[0], "notes__write_note") {
		t.Fatalf("rung %q, want one OSC 9 naming the tool", s.rung)
	}
	if strings.Contains(s.rung[0], "hello") {
		t.Errorf("the notification holds the call's arguments: %q", s.rung[0])
	}
	if err := session.SendDecision(g.dir, s.m.calls[0].Session, session.Decision{InvocationID: id, Approve: true, By: "bob on /dev/pts/9"}); err != nil {
		t.Fatal(err)
	}
	s.readUntil("the call decided elsewhere gone", func(v string) bool { return strings.Contains(v, "0 calls waiting") })
	g.waitRan("hello", 1)
	if g.ran("hello") != 1 {
		t.Errorf("the approved call ran %d times", g.ran("hello"))
	}
	if len(s.rung) != 1 {
		t.Errorf("rung %d times for one call", len(s.rung))
	}
}

// TestInboxLikeThisDecidesTogether: `a` marks the waiting calls with the
// same tool and exactly the same arguments, the confirmation step names
// them and their count, and Enter (after the guard) approves them
// together: each runs once, the other call still waits.
func TestInboxLikeThisDecidesTogether(t *testing.T) {
	g := newGateway(t, "")
	a1, a2 := g.park("ci", "same"), g.park("claude-code", "same")
	other := g.park("ci", "other")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 120, 40)
	s.readUntil("three calls", func(v string) bool { return strings.Contains(v, "3 calls waiting") })
	s.press(time.Second, runes("a"))
	v := s.m.View()
	containsAll(t, v, "2 marked", "marked 2 calls like this")
	s.press(time.Second, runes("y"))
	v = s.m.View()
	containsAll(t, v, "Approve 2 calls?", a1, a2, "(keys ignored for a moment)")
	if strings.Contains(v, other) && strings.Count(v, other) > 0 && strings.Contains(v[strings.Index(v, "Approve"):], other) {
		t.Errorf("the step names a call that is not marked:\n%s", v)
	}
	s.now = s.now.Add(guard)
	v = s.m.View()
	containsAll(t, v, "enter approves all 2")
	s.press(time.Second, enter)
	v = s.readUntil("one call left", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	containsAll(t, v, "approved 2 of 2 calls, by alice on /dev/pts/1")
	g.waitRan("same", 2)
	if g.ran("same") != 2 || g.ran("other") != 0 {
		t.Errorf("ran same %d times (want 2: one per call), other %d", g.ran("same"), g.ran("other"))
	}
}

// TestInboxMarksAndReject: Space marks calls one by one, n asks a reason,
// and the reason reaches the log with who decided.
func TestInboxMarksAndReject(t *testing.T) {
	g := newGateway(t, "")
	id1, id2 := g.park("ci", "one"), g.park("ci", "two")
	g.park("ci", "three")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 80, 24)
	s.readUntil("three calls", func(v string) bool { return strings.Contains(v, "3 calls waiting") })
	s.press(time.Second, space, space)
	s.press(time.Second, runes("n"))
	containsAll(t, s.m.View(), "Reject 2 calls?", id1, id2, "reason")
	s.press(time.Second, runes("n"), runes("o"), runes("t"), space, runes("now"))
	s.press(time.Second, enter)
	s.readUntil("one call left", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	// The summary says what was rejected, by whom and why, and counts
	// no refusals: only an approved call can be refused.
	if got, want := s.m.notes[len(s.m.notes)-1], `rejected 2 of 2 calls, by alice on /dev/pts/1, reason "not now": 0 decided elsewhere first, 0 failed`; got != want {
		t.Errorf("the rejection's summary: %q, want %q", got, want)
	}
	calls, err := session.ParkedCallsOf(g.dir, s.m.calls[0].Session)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range calls {
		if c.CallID == id1 || c.CallID == id2 {
			n++
			if c.Decision != "rejected" || c.By != "alice on /dev/pts/1" || c.Reason != "not now" {
				t.Errorf("%s: %s by %q (%q)", c.CallID, c.Decision, c.By, c.Reason)
			}
		}
	}
	if n != 2 || g.ran("one")+g.ran("two")+g.ran("three") != 0 {
		t.Errorf("rejected %d; ran %d", n, g.ran("one")+g.ran("two")+g.ran("three"))
	}
}

// TestInboxKeysInOneReadDecideNothing: the typed-ahead guard holds when
// the burst reaches the inbox in one read (one message of several runes,
// since each rune is now a key): "yyyy" opens the step and decides
// nothing; the step decides only after a pause.
func TestInboxKeysInOneReadDecideNothing(t *testing.T) {
	g := newGateway(t, "")
	g.park("ci", "x")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 80, 24)
	s.readUntil("the call", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	s.press(time.Second, runes("yyyy"))
	if s.m.step == nil || s.m.busy != 0 {
		t.Fatalf("keys in one read decided: step %v, busy %d", s.m.step, s.m.busy)
	}
	s.press(100*time.Millisecond, runes("yy"))
	if s.m.step == nil || s.m.busy != 0 || g.ran("x") != 0 {
		t.Fatalf("keys in one read within the pause decided: step %v, busy %d, ran %d", s.m.step, s.m.busy, g.ran("x"))
	}
	s.press(guard, enter)
	s.readUntil("decided after a pause", func(v string) bool { return strings.Contains(v, "0 calls waiting") })
	g.waitRan("x", 1)
}

// TestInboxTypedAheadKeysDecideNothing: keys that keep coming as the step
// opens (a y typed twice, Enter hit in the same burst) are not taken: the
// step decides only after a pause, whatever came before.
func TestInboxTypedAheadKeysDecideNothing(t *testing.T) {
	g := newGateway(t, "")
	g.park("ci", "x")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 80, 24)
	s.readUntil("the call", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	step := 100 * time.Millisecond
	s.press(step, runes("y"), runes("y"), enter, enter, enter, enter, enter)
	if s.m.step == nil || s.m.busy != 0 {
		t.Fatalf("typed-ahead keys decided: step %v, busy %d", s.m.step, s.m.busy)
	}
	containsAll(t, s.m.View(), "(keys ignored for a moment)")
	s.press(guard, enter)
	s.readUntil("decided after a pause", func(v string) bool { return strings.Contains(v, "0 calls waiting") })
	g.waitRan("x", 1)
	if g.ran("x") != 1 {
		t.Errorf("ran %d times", g.ran("x"))
	}
}

// TestInboxKeysBeforeTheFirstRead: a key that comes while the first read
// of the waiting calls is under way is taken once the calls are in (a
// marks the calls like the first), not lost on the empty list; keys typed
// ahead of that read still decide nothing (y opens the step, and the
// Enters that came with it fall in its pause).
func TestInboxKeysBeforeTheFirstRead(t *testing.T) {
	g := newGateway(t, "")
	g.park("ci", "same")
	g.park("ci", "same")
	g.park("ci", "other")
	s := unreadScreen(t, g.dir, "alice on /dev/pts/1", 100, 30)
	containsAll(t, s.m.View(), "0 calls waiting", "reading…")
	s.press(10*time.Millisecond, runes("a"))
	s.read()
	containsAll(t, s.m.View(), "3 calls waiting · 2 marked", "marked 2 calls like this")

	s = unreadScreen(t, g.dir, "alice on /dev/pts/1", 100, 30)
	s.press(10*time.Millisecond, runes("a"), runes("y"), enter, enter)
	s.read()
	if s.m.step == nil || s.m.busy != 0 {
		t.Fatalf("keys typed before the first read decided: step %v, busy %d", s.m.step, s.m.busy)
	}
	containsAll(t, s.m.View(), "Approve 2 calls?", "(keys ignored for a moment)")
	s.press(guard, tea.KeyMsg{Type: tea.KeyEsc})
	containsAll(t, s.m.View(), "nothing decided", "3 calls waiting")
	if n := g.ran("same") + g.ran("other"); n != 0 {
		t.Errorf("%d calls ran, want none", n)
	}
}

// TestInboxFirstDecisionWins: two inboxes approve and reject the same call
// at once: the gateway applies the first, the call runs at most once, and
// the other inbox says it was already decided, and by whom, and counts it
// so in its summary.
func TestInboxFirstDecisionWins(t *testing.T) {
	g := newGateway(t, "")
	g.park("ci", "race")
	a := newScreen(t, g.dir, "alice on /dev/pts/1", 100, 30)
	b := newScreen(t, g.dir, "bob on /dev/pts/2", 100, 30)
	for _, s := range []*screen{a, b} {
		s.readUntil("the call", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	}
	a.press(time.Second, runes("y"))
	b.press(time.Second, runes("n"))
	a.now, b.now = a.now.Add(time.Second), b.now.Add(time.Second)
	_, ca := a.m.Update(enter)
	_, cb := b.m.Update(enter)
	done := make(chan []string, 2)
	go func() { done <- ca().(decidedMsg).lines }()
	go func() { done <- cb().(decidedMsg).lines }()
	out := strings.Join(append(<-done, <-done...), "\n")
	won := strings.Contains(out, "approved 1 of 1") || strings.Contains(out, "rejected 1 of 1")
	lost := strings.Contains(out, "already approved by alice") || strings.Contains(out, "already rejected by bob") ||
		strings.Contains(out, "another decision on it is on its way")
	if !won || !lost || strings.Contains(out, "approved 1 of 1") == strings.Contains(out, "rejected 1 of 1") {
		t.Errorf("want one decision applied and the other told:\n%s", out)
	}
	if !strings.Contains(out, "0 of 1 call, by ") || (!strings.Contains(out, "approved 0 of 1 call, by alice on /dev/pts/1: 1 decided elsewhere first, 0 refused, 0 failed") &&
		!strings.Contains(out, "rejected 0 of 1 call, by bob on /dev/pts/2, with no reason given: 1 decided elsewhere first, 0 failed")) {
		t.Errorf("the other inbox's summary does not count its call as decided elsewhere first:\n%s", out)
	}
	if strings.Contains(out, "approved 1 of 1") {
		g.waitRan("race", 1)
	}
	if n := g.ran("race"); n > 1 || (n == 1) != strings.Contains(out, "approved 1 of 1") {
		t.Errorf("ran %d times:\n%s", n, out)
	}
}

// TestInboxBurstRingsOnce: many calls parking at once (a client flooding
// the gateway) ring the terminal once, not once a call; a call that comes
// after a pause rings again.
func TestInboxBurstRingsOnce(t *testing.T) {
	g := newGateway(t, "")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 100, 30)
	for i := range 20 {
		g.park("flood", fmt.Sprint("n", i))
	}
	s.readUntil("the burst listed", func(v string) bool { return strings.Contains(v, "20 calls waiting") })
	if len(s.rung) != 1 {
		t.Fatalf("a burst of 20 calls rang %d times, want once", len(s.rung))
	}
	s.now = s.now.Add(ringEvery)
	g.park("calm", "later")
	s.readUntil("the later call", func(v string) bool { return strings.Contains(v, "21 calls waiting") })
	if len(s.rung) != 2 {
		t.Errorf("a call after the pause rang %d times in all, want 2", len(s.rung))
	}
}

// TestInboxGatewayStoppedDecidesNothing: a gateway that stops while the
// step is open gets no decision (as latch approve refuses one): nothing
// is left in its inbox folder for a later start to apply, and the screen
// says why.
func TestInboxGatewayStoppedDecidesNothing(t *testing.T) {
	g := newGateway(t, "")
	id := g.park("ci", "late")
	s := newScreen(t, g.dir, "alice on /dev/pts/1", 100, 30)
	s.readUntil("the call", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	s.press(time.Second, runes("y"))
	sess := s.m.calls[0].Session
	g.sess.Close()
	s.press(time.Second, enter)
	containsAll(t, s.m.View(), "approved 0 of 1 call", id, "stopped: start it again to decide")
	if session.DecisionQueued(g.dir, sess, id) {
		t.Error("a decision was left in the stopped gateway's inbox")
	}
}

// TestInboxGatewayStopsBeforeTakingTheDecision: a gateway that stops
// (killed, say) after the decision landed in its inbox folder and before
// it took it: the inbox does not wait out session.TakeWait for it, and says the
// gateway stopped and that the decision applies when it starts again
// (the file stays for it; cli's TestInboxKillNineWithDecisionsInFlight
// starts it again).
func TestInboxGatewayStopsBeforeTakingTheDecision(t *testing.T) {
	g := startGateway(t, "", false)
	id := g.park("ci", "in flight")
	calls, err := Watch(g.dir)()
	if err != nil || len(calls) != 1 {
		t.Fatalf("the waiting calls: %v %v", calls, err)
	}
	said := make(chan []string, 1)
	go func() {
		lines, _ := send(g.dir, "alice on /dev/pts/1", true, "", calls, nil)
		said <- lines
	}()
	mcptestutil.WaitFor(t, wait, "the decision in the gateway's inbox", func() bool {
		return session.DecisionQueued(g.dir, calls[0].Session, id)
	})
	g.sess.Close()
	var lines []string
	select {
	case lines = <-said:
	case <-time.After(mcptestutil.HangBound(wait)):
		t.Fatal("the inbox never said what became of its decision")
	}
	text := strings.Join(lines, "\n")
	containsAll(t, text, "approved 0 of 1 call", id, "stopped before taking it; it applies it when started again")
	if !session.DecisionQueued(g.dir, calls[0].Session, id) {
		t.Error("the decision is no longer in the stopped gateway's inbox: nothing would apply it")
	}
	if g.ran("in flight") != 0 {
		t.Error("the call ran")
	}
}

// Watch's reads may overlap (a read after a decision while a poll's is
// under way, each in a goroutine of Bubble Tea's): they take turns, and
// each sees the waiting call (go test -race finds it otherwise).
func TestWatchReadsOverlap(t *testing.T) {
	g := newGateway(t, "")
	g.park("claude", "overlap")
	src := Watch(g.dir)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			calls, err := src()
			if err == nil && len(calls) != 1 {
				err = fmt.Errorf("%d calls, want 1", len(calls))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// The inbox reads its Source one read at a time: a read a decision asks
// for while a poll's is under way waits for it and then runs (an older
// read never lands after a newer one), and however many decisions ask for
// reads, one poll is scheduled at a time, not one more per decision.
func TestInboxReadsOneAtATime(t *testing.T) {
	var reads int
	m := New(Options{Dir: t.TempDir(), Every: time.Hour, Source: func() ([]Call, error) {
		reads++
		return nil, nil
	}})
	first := m.Init()
	if first == nil {
		t.Fatal("Init asked for no read")
	}
	for i := range 3 { // decisions come back while the first read is out
		if _, cmd := m.Update(decidedMsg{n: 0}); cmd != nil {
			t.Fatalf("decision %d started a read beside the one under way", i)
		}
	}
	_, cmd := m.Update(first())
	if cmd == nil {
		t.Fatal("the read the decisions asked for never ran")
	}
	msg := cmd()
	if _, ok := msg.(loadedMsg); !ok {
		t.Fatalf("after the first read came %T, want the decisions' read (one for all three)", msg)
	}
	_, tick := m.Update(msg)
	if tick == nil {
		t.Fatal("no poll was scheduled after the reads")
	}
	// A decision while the poll waits: its read runs now, and schedules
	// no second poll beside the first.
	_, cmd = m.Update(decidedMsg{n: 0})
	if cmd == nil {
		t.Fatal("a decision with no read under way started none")
	}
	if _, again := m.Update(cmd()); again != nil {
		t.Error("a decision's read scheduled a second poll beside the waiting one")
	}
	if reads != 3 {
		t.Errorf("the Source was read %d times, want 3 (Init's, one for the three decisions, the last decision's)", reads)
	}
}

// TestInboxRuleWhereNoneCanBeSaved: R where no rule can be saved (the
// inbox over SSH has no config to write) says so and why, and opens no
// step.
func TestInboxRuleWhereNoneCanBeSaved(t *testing.T) {
	g := newGateway(t, "")
	g.park("ci", "same")
	s := newScreen(t, g.dir, "ssh:SHA256:x phone", 120, 40)
	s.readUntil("one call", func(v string) bool { return strings.Contains(v, "1 call waiting") })
	s.press(time.Second, runes("R"))
	if s.m.step != nil {
		t.Fatal("R opened a step with no rule to save")
	}
	containsAll(t, s.m.View(), "R: no rule is saved from here", "run latch inbox on that machine")
}

// TestWrapWordsKeepsNamesWhole: the pane's and the notes' lines break at
// spaces only, never after a hyphen (a session's name was cut in two,
// "(session 20261202-08" and "0000-aaaaaa)"); a word longer than the line
// is cut, and no line is wider than asked.
func TestWrapWordsKeepsNamesWhole(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want []string
	}{
		{"id       gw_0a1b2c3d4e5f  (session 20261202-080000-aaaaaa)", 48,
			[]string{"id       gw_0a1b2c3d4e5f  (session", "20261202-080000-aaaaaa)"}},
		{"  kept indent, then words", 14, []string{"  kept indent,", "then words"}},
		{"ab " + strings.Repeat("x", 25), 10, []string{"ab", "xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"}},
		{"one\ntwo three", 5, []string{"one", "two", "three"}},
	} {
		got := wrapWords(c.s, c.w)
		if !slices.Equal(got, c.want) {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// TestInboxKeysInOneRead: keys that reach the inbox in one read (typed
// fast, on a busy machine, over ssh) come from Bubble Tea as one message
// of several runes; each is a key. "jj" moved nothing, and "jy" neither
// moved nor opened the step.
func TestInboxKeysInOneRead(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	s.press(time.Second, runes("jj"))
	if c, _, _ := s.m.selected(); c.Tool != "git__commit" {
		t.Fatalf(`after "jj" the selected call is %s, want the third, git__commit:\n%s`, c.Tool, s.m.View())
	}
	s.press(time.Second, runes("ky"))
	if c, _, _ := s.m.selected(); c.Tool != "mem__create_entities" || s.m.step == nil {
		t.Fatalf(`after "ky" the selected call is %s (want mem__create_entities) and the step is open %v:\n%s`,
			c.Tool, s.m.step != nil, s.m.View())
	}
}
