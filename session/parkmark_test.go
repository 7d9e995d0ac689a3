package session_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"latch/session"
)

// parkLog writes a gateway's log by hand, line by line, as the gateway
// writes them.
type parkLog struct {
	t    testing.TB
	path string
	n    int
}

func newParkLog(t testing.TB, dir, id string) *parkLog {
	return &parkLog{t: t, path: filepath.Join(dir, id+".jsonl")}
}

func (l *parkLog) add(lines ...string) {
	l.t.Helper()
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		l.t.Fatal(err)
	}
	defer f.Close()
	for _, s := range lines {
		if _, err := f.WriteString(s + "\n"); err != nil {
			l.t.Fatal(err)
		}
	}
}

// ev is one event's line, its time the next second.
func (l *parkLog) ev(typ, rest string) string {
	l.n++
	return fmt.Sprintf(`{"type":%q,"time":"2026-01-01T00:%02d:%02d.5Z","session_id":"gw","turn":0,%s}`, typ, l.n/60%60, l.n%60, rest)
}

// park parks call id as approval a, with args (a JSON value).
func (l *parkLog) park(id, a, args string) {
	l.add(l.ev("tool_call", fmt.Sprintf(`"call_id":%q,"server":"notes","tool":"notes__write_note","arguments":%s,"client":"ci"`, id, args)),
		l.ev("permission", fmt.Sprintf(`"call_id":%q,"tool":"notes__write_note","decision":"parked","by":"policy","reason":"waiting for approval","mode":"approve"`, id)),
		l.ev("approval_parked", fmt.Sprintf(`"approval_id":%q,"call_id":%q,"server":"notes","tool":"notes__write_note","arguments":%s,"digest":"d1","description":"Write a note.","client":"ci","expires":"2026-01-02T00:00:00Z"`, a, id, args)))
}

// decide logs a person's decision on approval a (call id).
func (l *parkLog) decide(id, a, decision string) {
	l.add(l.ev("approval_resolved", fmt.Sprintf(`"approval_id":%q,"call_id":%q,"decision":%q,"by":"alice"`, a, id, decision)))
}

// run logs call id allowed (by, "policy" or a person) and its result.
func (l *parkLog) run(id, by, text string) {
	l.add(l.ev("permission", fmt.Sprintf(`"call_id":%q,"tool":"notes__write_note","decision":"allowed","by":%q,"reason":"auto mode","mode":"auto"`, id, by)),
		l.ev("tool_result", fmt.Sprintf(`"call_id":%q,"tool":"notes__write_note","ok":true,"content":%q,"parts":[{"text":%q,"type":"text"}]`, id, text, text)))
}

// calls logs n calls allowed by the policy, none parked.
func (l *parkLog) calls(n int) {
	for i := range n {
		id := fmt.Sprintf("gw_plain%06d", l.n+i)
		l.add(l.ev("tool_call", fmt.Sprintf(`"call_id":%q,"server":"notes","tool":"notes__read","arguments":{},"client":"ci"`, id)))
		l.run(id, "policy", "a note "+strings.Repeat("x", i%50))
	}
}

// parkedWhole is what a reading of the whole log says (its mark set
// aside), with and without the results.
func parkedWhole(t *testing.T, dir, id string) (of, all []session.ParkedCall, waiting bool) {
	t.Helper()
	mark := session.MarkPathForTest(dir, id)
	b, markErr := os.ReadFile(mark)
	_ = os.Remove(mark)
	of, all, waiting = parkedNow(t, dir, id)
	if markErr == nil {
		if err := os.WriteFile(mark, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return of, all, waiting
}

func parkedNow(t *testing.T, dir, id string) (of, all []session.ParkedCall, waiting bool) {
	t.Helper()
	of, err := session.ParkedCallsOf(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if all, err = session.ParkedCalls(dir); err != nil {
		t.Fatal(err)
	}
	if waiting, err = session.HasWaiting(dir, id); err != nil {
		t.Fatal(err)
	}
	return of, all, waiting
}

// sameAsWhole fails unless reading the log with its mark says what
// reading it whole says.
func sameAsWhole(t *testing.T, dir, id, when string) []session.ParkedCall {
	t.Helper()
	wof, wall, ww := parkedWhole(t, dir, id)
	of, all, w := parkedNow(t, dir, id)
	if !reflect.DeepEqual(of, wof) || !reflect.DeepEqual(all, wall) || w != ww {
		t.Fatalf("%s: with the mark\n%+v\n%+v\nwaiting %v; whole\n%+v\n%+v\nwaiting %v", when, of, all, w, wof, wall, ww)
	}
	return of
}

// A log of a gateway's calls: one parked call that ran, one rejected,
// one waiting, among many that never parked.
func gatewayParkLog(t *testing.T, dir string) *parkLog {
	l := newParkLog(t, dir, "gw")
	l.calls(200)
	l.park("gw_ran", "a1", `{"text":"ran"}`)
	l.calls(100)
	l.decide("gw_ran", "a1", "approved")
	l.run("gw_ran", "alice", "saved: ran")
	l.park("gw_rejected", "a2", `{"text":"no"}`)
	l.decide("gw_rejected", "a2", "rejected")
	l.park("gw_waiting", "a3", `{"text":"later"}`)
	l.calls(200)
	return l
}

// A mark kept beside a log names the lines a reading of its parked calls
// needs: reading them, then what the log gained, says what reading the
// whole log says, as the log grows, is edited in place, cut short,
// rewritten or replaced by another.
func TestParkMarkReadsAsTheWholeLog(t *testing.T) {
	session.MarkEveryForTest(t, 1)
	dir := t.TempDir()
	l := gatewayParkLog(t, dir)
	mark := session.MarkPathForTest(dir, "gw")
	calls := sameAsWhole(t, dir, "gw", "no mark yet")
	if len(calls) != 3 || calls[0].Decision != "approved" || !calls[0].Ran || calls[0].Result.Content != "saved: ran" ||
		calls[1].Decision != "rejected" || !calls[2].Waiting() || calls[2].Arguments["text"] != "later" {
		t.Fatalf("the calls: %+v", calls)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("no mark kept: %v", err)
	}
	sameAsWhole(t, dir, "gw", "the mark of the whole log")

	l.calls(50)
	l.decide("gw_waiting", "a3", "approved")
	l.run("gw_waiting", "alice", "saved: later")
	if c := sameAsWhole(t, dir, "gw", "the log grown"); c[2].Decision != "approved" || !c[2].Ran {
		t.Fatalf("the call approved since: %+v", c[2])
	}

	// Edited in place, the same length: a decision changed.
	b, _ := os.ReadFile(l.path)
	edited := bytes.Replace(b, []byte(`"decision":"rejected"`), []byte(`"decision":"approved"`), 1)
	if err := os.WriteFile(l.path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := sameAsWhole(t, dir, "gw", "a decision edited in place"); c[1].Decision != "approved" {
		t.Fatalf("the edited decision: %+v", c[1])
	}
	l.calls(3)
	sameAsWhole(t, dir, "gw", "edited, then grown")

	// Edited in place, lines moved: a line early in the log made longer.
	b, _ = os.ReadFile(l.path)
	if err := os.WriteFile(l.path, bytes.Replace(b, []byte(`"text":"ran"`), []byte(`"text":"ran far"`), 2), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := sameAsWhole(t, dir, "gw", "lines moved"); c[0].Arguments["text"] != "ran far" {
		t.Fatalf("the edited call: %+v", c[0])
	}

	// Cut short, in the middle of the rejected call's lines.
	b, _ = os.ReadFile(l.path)
	cut := bytes.Index(b, []byte(`"approval_id":"a2","call_id":"gw_rejected","decision"`))
	if err := os.Truncate(l.path, int64(cut)); err != nil {
		t.Fatal(err)
	}
	if c := sameAsWhole(t, dir, "gw", "cut short"); len(c) != 2 || c[1].Decision != "" {
		t.Fatalf("after the cut: %+v", c)
	}

	// Another log under its name: a new file, with the old one's mark.
	other := t.TempDir()
	gatewayParkLog(t, other)
	newParkLog(t, other, "gw").calls(1)
	if err := os.Rename(filepath.Join(other, "gw.jsonl"), l.path); err != nil {
		t.Fatal(err)
	}
	if c := sameAsWhole(t, dir, "gw", "replaced"); len(c) != 3 || c[1].Decision != "rejected" {
		t.Fatalf("the other log's calls: %+v", c)
	}
}

// With a mark, a reading reads the lines it names and what came after
// it, none of the others: a line before the mark that was no parked
// call's, changed in place into a rejection of the waiting call, is not
// seen (a reading of the whole log sees it). That is what makes a
// gateway's start cost the same however many calls its log holds.
func TestParkMarkSkipsTheOtherLines(t *testing.T) {
	dir := t.TempDir()
	l := gatewayParkLog(t, dir)
	if err := session.MarkParked(dir, "gw"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(l.path)
	// A call that never parked, after the waiting one, not the last line
	// (the mark keeps the bytes before its end, to know its log).
	result := []byte(`"type":"tool_result"`)
	at := bytes.LastIndex(b[:bytes.LastIndex(b, result)], result)
	start := bytes.LastIndexByte(b[:at], '\n') + 1
	end := start + bytes.IndexByte(b[start:], '\n')
	reject := []byte(`{"type":"approval_resolved","approval_id":"a3","call_id":"gw_waiting","decision":"rejected","by":"mallory"}`)
	if len(reject) > end-start {
		t.Fatalf("the line to change is too short (%d bytes)", end-start)
	}
	copy(b[start:end], append(reject, bytes.Repeat([]byte(" "), end-start-len(reject))...))
	if err := os.WriteFile(l.path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	l.calls(1) // grown since the mark, so the mark still fits
	if w, err := session.HasWaiting(dir, "gw"); err != nil || !w {
		t.Errorf("with the mark, HasWaiting: %v, %v (want the call still waiting)", w, err)
	}
	if _, _, w := parkedWhole(t, dir, "gw"); w {
		t.Error("a whole reading does not see the rejection")
	}
}

// A parking whose arguments are not an object, as a hand edit may leave
// it, is no call: ParkedCallsOf skips the line, and HasWaiting, the same
// reading, says nothing waits (it once counted the call as waiting).
func TestHasWaitingSkipsWhatParkedCallsSkip(t *testing.T) {
	dir := t.TempDir()
	l := newParkLog(t, dir, "gw")
	l.park("gw_bad", "a1", `"not an object"`)
	l.park("gw_list", "a2", `[1,2]`)
	calls, err := session.ParkedCallsOf(dir, "gw")
	if err != nil || len(calls) != 0 {
		t.Fatalf("ParkedCallsOf: %+v, %v", calls, err)
	}
	if w, err := session.HasWaiting(dir, "gw"); err != nil || w {
		t.Errorf("HasWaiting: %v, %v; want false, as no call is read", w, err)
	}
	l.park("gw_null", "a3", `null`)
	if w, err := session.HasWaiting(dir, "gw"); err != nil || !w {
		t.Errorf("HasWaiting with a call of no arguments (null) waiting: %v, %v", w, err)
	}
	if calls, _ := session.ParkedCallsOf(dir, "gw"); len(calls) != 1 || !calls[0].Waiting() {
		t.Errorf("ParkedCallsOf with a call of no arguments waiting: %+v", calls)
	}
}
