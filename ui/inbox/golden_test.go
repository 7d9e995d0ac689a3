package inbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"latch/session"
	"latch/ui"
)

// fixed is a Source of the same calls at every read: a gateway's calls of
// two clients (one with a long value and many keys), a chat's call, and
// one whose gateway stopped.
func fixed(now time.Time) Source {
	long := strings.Repeat("lorem ipsum ", 40)
	args := map[string]any{"path": "/home/alice/notes/today.md", "content": long}
	for i := range 14 {
		args[fmt.Sprintf("k%02d", i)] = i
	}
	calls := []Call{
		{ParkedCall: session.ParkedCall{Session: "20261202-080000-aaaaaa", ApprovalID: "A1", CallID: "gw_3f9c0a1b2c4d", Client: "claude-code",
			Tool: "fs__write_file", Server: "fs", Arguments: args, Parked: now.Add(-42 * time.Second), Expires: now.Add(23 * time.Hour),
			Mode: "approve"}},
		{ParkedCall: session.ParkedCall{Session: "20261202-080000-aaaaaa", ApprovalID: "A2", CallID: "gw_0a1b2c3d4e5f", Client: "ci-job",
			Tool: "mem__create_entities", Server: "mem", Arguments: map[string]any{"entities": []any{map[string]any{"name": "alice"}}},
			Parked: now.Add(-3 * time.Minute), Expires: now.Add(2 * time.Hour), Mode: "read_only", Rule: "config latch.json: permissions.rules[2]"}},
		{ParkedCall: session.ParkedCall{Session: "20261202-070000-bbbbbb", ApprovalID: "A1", CallID: "call_1", Tool: "git__commit",
			Server: "git", Arguments: map[string]any{"message": "wip"}, Parked: now.Add(-time.Hour), Mode: "approve"}},
		{ParkedCall: session.ParkedCall{Session: "20261202-060000-cccccc", ApprovalID: "A1", CallID: "gw_ffffeeeedddd", Client: "cursor",
			Tool: "fs__delete", Server: "fs", Arguments: map[string]any{"path": "/tmp/x"}, Parked: now.Add(-2 * time.Hour),
			Expires: now.Add(22 * time.Hour), Mode: "approve"}, Stopped: true},
	}
	return func() ([]Call, error) { return calls, nil }
}

// goldenScreen is the inbox of the fixed calls at w×h.
func goldenScreen(t *testing.T, w, h int) *screen {
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	s := &screen{t: t, now: now}
	s.m = New(Options{By: "alice", Source: fixed(now), Now: func() time.Time { return s.now },
		Args: func(p session.ParkedCall, full bool) ([]string, int) {
			return ui.ArgLines(p.Arguments, ui.ArgView{Full: full})
		},
		Line: func(p session.ParkedCall) string { return ui.ArgLine(p.Arguments, ui.ArgView{}) }})
	s.m.Update(windowSize(w, h))
	s.read()
	return s
}

// TestGoldenInbox80x24 and TestGoldenInbox120x40: the list, and the
// selected call's arguments below it (80 columns) or beside it (120),
// every key there, the long value elided saying by how much, the lines
// not shown counted.
func TestGoldenInbox80x24(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	golden.RequireEqual(t, []byte(s.m.View()))
}

func TestGoldenInbox120x40(t *testing.T) {
	s := goldenScreen(t, 120, 40)
	s.press(time.Second, space)
	golden.RequireEqual(t, []byte(s.m.View()))
}

// TestGoldenInboxElided120x40: the call with a long value selected, the
// pane beside the list: the line over its arguments, saying how many
// values are elided and that f shows them whole, breaks between words
// (it broke "show" / "s").
func TestGoldenInboxElided120x40(t *testing.T) {
	s := goldenScreen(t, 120, 40)
	golden.RequireEqual(t, []byte(s.m.View()))
}

// TestGoldenInboxStep80x24: the confirmation step names the calls and
// their count, leaves out the one that cannot be decided here (saying
// why), and ignores keys for a moment.
func TestGoldenInboxStep80x24(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	s.press(time.Second, space, space, space, runes("y"))
	golden.RequireEqual(t, []byte(s.m.View()))
}

// TestInboxScreensFit: every line of every screen fits its width and the
// screen its height, whatever is open.
func TestInboxScreensFit(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {40, 10}, {200, 60}} {
		s := goldenScreen(t, size[0], size[1])
		for _, k := range []string{"", "j", "f", "J", " ", "y"} {
			if k != "" {
				s.press(time.Second, runes(k))
			}
			assertFits(t, s.m.View(), size[0], size[1])
		}
	}
}

// assertFits fails the test when v is wider than w or taller than h.
func assertFits(t *testing.T, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) > h {
		t.Errorf("%d lines on a screen of %d", len(lines), h)
	}
	for _, l := range lines {
		if n := displayWidth(l); n > w {
			t.Errorf("a line of %d cells on a screen of %d: %q", n, w, l)
		}
	}
}

// TestInboxFilterAndScroll: / filters by client, tool or server; the
// selection follows what is shown; Esc drops the filter. Arguments longer
// than the pane scroll with pgdn, the last row saying which lines show of
// how many, down to the last key.
func TestInboxFilterAndScroll(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	s.press(time.Second, runes("/"), runes("m"), runes("e"), runes("m"), enter)
	v := s.m.View()
	containsAll(t, v, `filter "mem": 1 shown`, "mem__create_entities", "id       gw_0a1b2c3d4e5f")
	if strings.Contains(v, "fs__write_file") {
		t.Errorf("the filter shows calls of other servers:\n%s", v)
	}
	s.press(time.Second, tea.KeyMsg{Type: tea.KeyEsc})
	v = s.m.View()
	containsAll(t, v, "4 calls waiting", "fs__write_file")
	s.press(time.Second, tea.KeyMsg{Type: tea.KeyHome})
	containsAll(t, s.m.View(), "lines 1-8 of 19")
	for range 5 {
		s.press(time.Second, tea.KeyMsg{Type: tea.KeyPgDown})
	}
	containsAll(t, s.m.View(), "lines 12-19 of 19", `"path": "/home/alice/notes/today.md"`, "  }")
}

// TestInboxLaysOutArgumentsOnce: a call whose arguments are megabytes
// long is laid out once for the pane and once for the list, not at every
// frame (the screen is drawn four times a second while it is live).
func TestInboxLaysOutArgumentsOnce(t *testing.T) {
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	big := []Call{{ParkedCall: session.ParkedCall{Session: "s1", ApprovalID: "A1", CallID: "gw_1", Client: "ci", Tool: "fs__write_file",
		Arguments: map[string]any{"content": strings.Repeat("x", 4<<20)}, Parked: now, Expires: now.Add(time.Hour)}}}
	laidOut, lined := 0, 0
	s := &screen{t: t, now: now}
	s.m = New(Options{Source: func() ([]Call, error) { return big, nil }, Now: func() time.Time { return s.now },
		Args: func(p session.ParkedCall, full bool) ([]string, int) {
			laidOut++
			return ui.ArgLines(p.Arguments, ui.ArgView{Full: full})
		},
		Line: func(p session.ParkedCall) string { lined++; return ui.ArgLine(p.Arguments, ui.ArgView{}) }})
	s.m.Update(windowSize(80, 24))
	s.press(time.Second, runes("f"))
	for range 10 {
		s.read()
		_ = s.m.View()
	}
	if laidOut != 1 || lined != 1 {
		t.Errorf("10 frames laid the arguments out %d times for the pane and %d for the list; want once each", laidOut, lined)
	}
	containsAll(t, s.m.View(), "lines 1-")
}

// bulkOutcome is what send says of a bulk approval of 12 calls by alice:
// 9 applied, one decided first by bob, one refused by a rule, one whose
// gateway stopped.
func bulkOutcome() decidedMsg {
	t := tally{word: "approved", by: "alice", total: 12, ok: 9, elsewhere: 1, refused: 1, fail: 1}
	c := func(id string) Call { return Call{ParkedCall: session.ParkedCall{CallID: id, Tool: "fs__write_file"}} }
	return decidedMsg{lines: []string{
		notDecided(c("gw_000000000010"), t.word, "it was already rejected by bob"),
		notDecided(c("gw_000000000011"), t.word, "approved, but the gateway refused it: denied by rule config latch.json: permissions.rules[0]"),
		notDecided(c("gw_000000000012"), t.word, "its gateway (session 20261202-060000-cccccc) stopped: start it again to decide"),
		t.summary(),
	}}
}

// TestGoldenInboxBulkNotes80x24: under the list, a bulk decision is one
// summary with its counts (approved, decided elsewhere first, refused,
// failed), last, after the lines on single calls (they fit here; a bulk
// whose lines do not is TestInboxAllNotesScroll's).
func TestGoldenInboxBulkNotes80x24(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	s.press(time.Second, runes("a"))
	s.m.Update(bulkOutcome())
	golden.RequireEqual(t, []byte(s.m.View()))
}

// TestGoldenInboxBulkNotes70x20: on a short screen the notes that fit are
// the newest, the bulk's summary last, and the keys stay under them; the
// selected call loses the end of its arguments instead. The call's fields
// pushed the summary and the keys off the screen; then the notes took
// the list's rows, leaving one call in it ("… 3 more below"): the list
// keeps a row for each call (up to half the screen), the older notes go,
// and the last row of notes says how many went and that L lists them
// (they went silently).
func TestGoldenInboxBulkNotes70x20(t *testing.T) {
	s := goldenScreen(t, 70, 20)
	s.press(time.Second, runes("a"))
	s.m.Update(bulkOutcome())
	v := s.m.View()
	assertFits(t, v, 70, 20)
	containsAll(t, v, "approved 9 of 12 calls", "2 older notes not shown here: L lists every note", "q quit", "claude-code", "ci-job", "(chat)", "cursor", "tool     fs__write_file")
	if strings.Contains(v, "more below") {
		t.Errorf("the notes took the list's rows:\n%s", v)
	}
	golden.RequireEqual(t, []byte(v))
}

// TestGoldenInboxRejectNotes70x20: a rejection's summary says what was
// rejected, by whom, and the reason the clients were given (an escape and
// a planted token-looking value in it shown inert, as typed); it counts
// no refusals (it said "0 refused", which only an approval can be). The
// list keeps its four calls.
func TestGoldenInboxRejectNotes70x20(t *testing.T) {
	s := goldenScreen(t, 70, 20)
	reason := "not on main \x1b]52;c;SGVsbG8=\x07\x1b[2J ghp_PLANTEDtoken0123456789abcdefABCDEF"
	t1 := tally{word: "rejected", by: "alice on /dev/pts/1\x1b[2J", reason: reason, total: 3, ok: 2, elsewhere: 1}
	c := Call{ParkedCall: session.ParkedCall{CallID: "gw_000000000010", Tool: "fs__write_file"}}
	s.m.Update(decidedMsg{lines: []string{notDecided(c, t1.word, "it was already approved by bob"), t1.summary()}})
	v := s.m.View()
	assertFits(t, v, 70, 20)
	if strings.ContainsAny(v, "\x1b\x07") {
		t.Fatalf("a control reached the screen: %q", v)
	}
	containsAll(t, v, "rejected 2 of 3 calls, by alice on /dev/pts/1␛[2J, reason", "␛]52;c;SGVsbG8=␇␛[2J ghp_PLANTED",
		"decided elsewhere first, 0 failed", "claude-code", "ci-job", "(chat)", "cursor")
	if strings.Contains(v, "refused") {
		t.Errorf("a rejection's summary counts refusals:\n%s", v)
	}
	golden.RequireEqual(t, []byte(v))
}

// TestGoldenInboxAllNotes80x24: L shows every note of this inbox, oldest
// first, none left out.
func TestGoldenInboxAllNotes80x24(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	s.press(time.Second, runes("a"))
	s.m.Update(bulkOutcome())
	s.press(time.Second, runes("L"))
	golden.RequireEqual(t, []byte(s.m.View()))
}

// TestInboxAllNotesScroll: the full list of notes keeps every note of a
// bulk of 1,000 failures (under the list only the last few fit) and
// scrolls from the first to the last; it fits its screen; esc closes it,
// back to the list.
func TestInboxAllNotesScroll(t *testing.T) {
	s := goldenScreen(t, 80, 24)
	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("gw_%012d (fs__write_file): not approved: it was already rejected by bob", i))
	}
	t1 := tally{word: "approved", by: "alice", total: 1000, elsewhere: 1000}
	s.m.Update(decidedMsg{lines: append(lines, t1.summary())})
	v := s.m.View()
	containsAll(t, v, "approved 0 of 1000 calls, by alice: 1000 decided elsewhere first, 0 refused",
		"… and 998 more notes on single calls: L lists every note")
	s.press(time.Second, runes("L"))
	v = s.m.View()
	assertFits(t, v, 80, 24)
	containsAll(t, v, "every note of this inbox: 1001 lines", "approved 0 of 1000 calls")
	s.press(time.Second, tea.KeyMsg{Type: tea.KeyHome})
	v = s.m.View()
	containsAll(t, v, "gw_000000000000 ", "lines 1-21 of ")
	for range 2 {
		s.press(time.Second, tea.KeyMsg{Type: tea.KeyPgDown})
	}
	containsAll(t, s.m.View(), "lines 41-61 of ", "gw_000000000040 ")
	s.press(time.Second, tea.KeyMsg{Type: tea.KeyEnd})
	containsAll(t, s.m.View(), "gw_000000000999 ", "approved 0 of 1000 calls")
	s.press(time.Second, tea.KeyMsg{Type: tea.KeyEsc})
	v = s.m.View()
	containsAll(t, v, "4 calls waiting", "fs__write_file")
	if strings.Contains(v, "every note of this inbox") {
		t.Errorf("esc did not close the notes:\n%s", v)
	}
}
