package parkindex

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"latch/session"
)

// view is what a person is shown of a call, to compare the index with
// the log's own reading.
func view(p session.ParkedCall) string {
	return fmt.Sprintf("%s %s %s client=%q caller=%+v tool=%s server=%s digest=%s mode=%s rule=%q parked=%d expires=%d "+
		"decision=%s by=%q reason=%q started=%v ran=%v err=%v/%q refused=%q args=%#v",
		p.Session, p.ApprovalID, p.CallID, p.Client, p.Caller, p.Tool, p.Server, p.Digest, p.Mode, p.Rule,
		p.Parked.UnixNano(), p.Expires.UnixNano(), p.Decision, p.By, p.Reason, p.Started, p.Ran,
		p.Result.IsError, p.Result.Error, p.Refused, p.Arguments)
}

// agrees fails unless the index holds the calls of the session log as the
// log reader reads them: waiting, and each one found by its id.
func agrees(t *testing.T, x *Index, dir, sessionID string) {
	t.Helper()
	if err := x.CatchUp(); err != nil {
		t.Fatal(err)
	}
	truth := logged(t, dir, sessionID)
	var want []string
	for _, p := range truth {
		if p.Waiting() {
			want = append(want, view(p))
		}
		got, err := x.Find(p.CallID)
		if err != nil || len(got) != 1 || view(got[0]) != view(p) {
			t.Errorf("Find(%s) = %v, %v\nwant %s", p.CallID, got, err, view(p))
		}
	}
	calls, err := x.Waiting()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range calls {
		got = append(got, view(p))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("waiting:\n%s\nwant (the log's reading):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	callsOfAgree(t, x, sessionID, truth)
}

// callsOfAgree fails unless CallsOf finds the session's calls by their
// ids as the log reads them, in the order logged, however the ids are
// split into queries (unknown ids around them push the calls across the
// first batch's end) and in whatever order they are asked for.
func callsOfAgree(t *testing.T, x *Index, sessionID string, truth []session.ParkedCall) {
	t.Helper()
	var ids, want []string
	for i := range findBatch - 1 {
		ids = append(ids, fmt.Sprintf("gw_nosuch%d", i))
	}
	for i := len(truth) - 1; i >= 0; i-- {
		ids = append(ids, truth[i].CallID)
	}
	for _, p := range truth {
		want = append(want, view(p))
	}
	calls, err := x.CallsOf(sessionID, append(ids, "gw_nosuch"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range calls {
		got = append(got, view(p))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CallsOf:\n%s\nwant (the log's reading):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if other, err := x.CallsOf("20200101-000000-ffffff", ids); err != nil || len(other) != 0 {
		t.Errorf("CallsOf another session: %v, %v; want none", other, err)
	}
}

// The index agrees with the log's own reading of its calls, waiting and
// decided (approved and run, rejected), and a catch-up after calls are
// added reads only the bytes added.
func TestIndexAgreesWithTheLogAndReadsOnlyTheTail(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	var ids []string
	for i := range 4 {
		ids = append(ids, g.park("ci", map[string]any{"text": fmt.Sprintf("note %d", i), "n": 1.50}))
	}
	x := ready(t, dir, Options{})
	agrees(t, x, dir, g.sess.ID())
	if err := g.decide(ids[0], true, "alice on /dev/pts/1"); err != nil {
		t.Fatal(err)
	}
	if err := g.decide(ids[1], false, "bob"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the approved call's result logged", func() bool {
		c, _ := session.ParkedCallsOf(dir, g.sess.ID())
		return len(c) > 0 && c[0].Ran
	})
	ids = append(ids, g.park("other", map[string]any{"text": "later"}))
	var known int64
	_ = x.db.QueryRow("SELECT size FROM logs").Scan(&known)
	agrees(t, x, dir, g.sess.ID())
	// The log's size after the catch-up: the session may still append
	// (the decided calls' last records) after a stat taken before it,
	// and the catch-up then reads more than that stat says it grew.
	fi, _ := os.Stat(filepath.Join(dir, g.sess.ID()+".jsonl"))
	if x.lastRead == 0 || x.lastRead > fi.Size()-known {
		t.Errorf("the catch-up read %d bytes; the log grew by %d since it was read", x.lastRead, fi.Size()-known)
	}
	if got := waiting(t, x); !reflect.DeepEqual(got, []string{ids[2], ids[3], ids[4]}) {
		t.Errorf("waiting %v, want %v", got, ids[2:])
	}
	if err := x.CatchUp(); err != nil || x.lastRead != 0 {
		t.Errorf("a catch-up with no log changed read %d bytes (%v)", x.lastRead, err)
	}
}

// The index is a cache: removed (with its WAL files), it is built again
// from the logs, whole, and its file is the user's alone (0600).
func TestIndexRebuiltAfterDeletion(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	a, b := g.park("ci", map[string]any{"text": "a"}), g.park("ci", map[string]any{"text": "b"})
	x := ready(t, dir, Options{})
	if got := waiting(t, x); len(got) != 2 {
		t.Fatalf("waiting %v", got)
	}
	_ = x.Close()
	for _, ext := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(filepath.Join(dir, FileName+ext))
	}
	x = ready(t, dir, Options{})
	if got := waiting(t, x); !reflect.DeepEqual(got, []string{a, b}) {
		t.Errorf("rebuilt: waiting %v, want %v", got, []string{a, b})
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the index file: %v, %v; want mode 0600", fi.Mode(), err)
	}
}

// A log changed behind the index is read again whole: truncated, replaced
// by another file, or edited in place with its size kept.
func TestIndexSeesALogChangedBehindIt(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	var ids []string
	for i := range 4 {
		ids = append(ids, g.park("ci", map[string]any{"text": fmt.Sprintf("note %d", i)}))
	}
	g.sess.Close()
	path := filepath.Join(dir, g.sess.ID()+".jsonl")
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x := ready(t, dir, Options{})
	agrees(t, x, dir, g.sess.ID())

	// Truncated after the second parking.
	cut := bytes.Index(whole, []byte(ids[2]))
	cut = bytes.LastIndexByte(whole[:cut], '\n') + 1
	if err := os.Truncate(path, int64(cut)); err != nil {
		t.Fatal(err)
	}
	for strings.Contains(string(whole[:cut]), ids[2]) {
		t.Fatal("the cut is not before the third call")
	}
	agrees(t, x, dir, g.sess.ID())
	if got := waiting(t, x); len(got) >= 4 {
		t.Errorf("after truncation: waiting %v", got)
	}

	// Replaced by another file (renamed over it), longer than before.
	edited := bytes.ReplaceAll(whole, []byte(ids[3]), []byte("gw_replaced0001"[:len(ids[3])]))
	tmp := path + ".new"
	if err := os.WriteFile(tmp, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	agrees(t, x, dir, g.sess.ID())

	// Edited in place, its size kept.
	edited = bytes.ReplaceAll(edited, []byte(ids[1]), []byte("gw_inplace00001"[:len(ids[1])]))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	agrees(t, x, dir, g.sess.ID())
	got := waiting(t, x)
	if len(got) != 4 || got[1] != "gw_inplace00001"[:len(ids[1])] || got[3] != "gw_replaced0001"[:len(ids[3])] {
		t.Errorf("after the log was replaced and edited: waiting %v", got)
	}

	// Removed: its calls go with it.
	_ = os.Remove(path)
	if got := waiting(t, x); len(got) != 0 {
		t.Errorf("after the log was removed: waiting %v", got)
	}
}

// A corrupt index is set aside, said once, and built again.
func TestIndexCorruptIsSetAsideAndRebuilt(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	a := g.park("ci", map[string]any{"text": "a"})
	if err := os.WriteFile(filepath.Join(dir, FileName), bytes.Repeat([]byte("not a database\n"), 400), 0o600); err != nil {
		t.Fatal(err)
	}
	var said []string
	o := Options{Warn: func(msg string) { said = append(said, msg) }}
	x := ready(t, dir, o)
	if got := waiting(t, x); !reflect.DeepEqual(got, []string{a}) {
		t.Errorf("waiting %v, want [%s]", got, a)
	}
	if len(said) != 1 || !strings.Contains(said[0], "corrupt") {
		t.Errorf("said %q, want one line that the index was corrupt", said)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName+".corrupt")); err != nil {
		t.Errorf("the corrupt file was not kept aside: %v", err)
	}
	_ = x.Close()
	said = nil
	x = ready(t, dir, o)
	if got := waiting(t, x); len(got) != 1 || len(said) != 0 {
		t.Errorf("opened again: waiting %v, said %q", got, said)
	}
}

// Hostile values in a call's arguments, and lines planted in a log, stay
// data: escapes, NUL, quotes of SQL, a huge value, and torn or
// undecodable lines; the index holds what the log reader reads.
func TestIndexHostileLinesStayInert(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	huge := strings.Repeat("x", 2<<20)
	g.park("ci", map[string]any{"text": "\x1b]52;c;aGk=\x07\x00'); DROP TABLE calls;--", "huge": huge,
		"nested": map[string]any{"\u202e": []any{1e308, "\r\n"}}})
	g.park("ci'--", map[string]any{"text": "b"})
	g.sess.Close()
	path := filepath.Join(dir, g.sess.ID()+".jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"type":"approval_parked","approval_id":"x","call_id":` + "\n" +
		`{"type":"approval_resolved","approval_id":"'; DELETE FROM calls; --","decision":"approved"}` + "\n" +
		`{"type":"approval_parked","call_id":"gw_torn`) // a torn last line
	_ = f.Close()
	x := ready(t, dir, Options{})
	agrees(t, x, dir, g.sess.ID())
	calls, err := x.Waiting()
	if err != nil || len(calls) != 2 || calls[0].Arguments["huge"] != huge {
		t.Fatalf("waiting %d calls (%v); the huge value kept whole: %v", len(calls), err, len(calls) > 0 && calls[0].Arguments["huge"] == huge)
	}
}

// The first decision wins, as the gateway logs it: a second is refused,
// and the index says who decided first.
func TestIndexFirstDecisionWins(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	id := g.park("ci", map[string]any{"text": "a"})
	if err := g.decide(id, false, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := g.decide(id, true, "mallory"); err == nil {
		t.Error("a second decision on a decided call was applied")
	}
	x := ready(t, dir, Options{})
	got, err := x.Find(id)
	if err != nil || len(got) != 1 || got[0].Decision != "rejected" || got[0].By != "alice" {
		t.Errorf("Find: %+v %v; want rejected by alice", got, err)
	}
}

// Several processes catch up one index at once, while the gateway parks
// more calls: none fails, and the index agrees with the log after.
func TestIndexSeveralProcessesAtOnce(t *testing.T) {
	if os.Getenv("PARKINDEX_CHILD") != "" {
		childCatchUp(t)
		return
	}
	dir := t.TempDir()
	g := newGateway(t, dir)
	for i := range 50 {
		g.park("ci", map[string]any{"text": fmt.Sprintf("before %d", i)})
	}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestIndexSeveralProcessesAtOnce$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PARKINDEX_CHILD="+dir)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i := range 50 {
		g.park("ci", map[string]any{"text": fmt.Sprintf("during %d", i)})
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	x := ready(t, dir, Options{})
	agrees(t, x, dir, g.sess.ID())
	if got := waiting(t, x); len(got) != 100 {
		t.Errorf("waiting %d calls, want 100", len(got))
	}
}

// childCatchUp is one of the processes of TestIndexSeveralProcessesAtOnce:
// it catches up the index again and again.
func childCatchUp(t *testing.T) {
	dir := os.Getenv("PARKINDEX_CHILD")
	for range 30 {
		x, err := Ready(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		calls, err := x.Waiting()
		if err != nil || len(calls) < 50 {
			t.Fatalf("%d calls waiting, %v", len(calls), err)
		}
		_ = x.Close()
	}
}

// Live gives the waiting calls again without reading anything when no
// log changed, takes in a decision and a new call, and drops the calls
// of a log removed.
func TestLiveReadsWhatChanged(t *testing.T) {
	dir := t.TempDir()
	g := newGateway(t, dir)
	a, b := g.park("ci", map[string]any{"text": "a"}), g.park("ci", map[string]any{"text": "b"})
	x := ready(t, dir, Options{})
	l := x.Live()
	ids := func(want bool) []string {
		t.Helper()
		calls, changed, err := l.Waiting()
		if err != nil || changed != want {
			t.Fatalf("Waiting: changed %v, %v; want changed %v", changed, err, want)
		}
		var out []string
		for _, c := range calls {
			out = append(out, c.CallID)
		}
		return out
	}
	if got := ids(true); !reflect.DeepEqual(got, []string{a, b}) {
		t.Errorf("first read: %v", got)
	}
	if got := ids(false); !reflect.DeepEqual(got, []string{a, b}) || x.lastRead != 0 {
		t.Errorf("unchanged: %v, %d bytes read", got, x.lastRead)
	}
	if err := g.decide(a, false, "alice"); err != nil {
		t.Fatal(err)
	}
	c := g.park("ci", map[string]any{"text": "c"})
	if got := ids(true); !reflect.DeepEqual(got, []string{b, c}) {
		t.Errorf("after a decision and a new call: %v, want %v", got, []string{b, c})
	}
	g.sess.Close()
	_ = os.Remove(filepath.Join(dir, g.sess.ID()+".jsonl"))
	if got := ids(true); len(got) != 0 {
		t.Errorf("after the log was removed: %v", got)
	}
}
