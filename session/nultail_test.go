package session_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// nulTails are the ends a power loss can leave on a log: the file was
// extended (its size is on disk) but the data never reached it, so it reads
// as NUL bytes, maybe with a newline of the next page that did reach it.
// cut is how many bytes of the whole log are kept before the NULs; line is
// the line the warning names (counted in the whole log, lines), and lost how
// many whole events are not read.
func nulTails(whole []byte, lines int) []struct {
	name       string
	data       []byte
	line, lost int
} {
	nul := bytes.Repeat([]byte{0}, 300)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	return []struct {
		name       string
		data       []byte
		line, lost int
	}{
		{"NULs", cat(whole, nul), lines + 1, 0},
		{"NULs then a newline", cat(whole, nul, []byte("\n")), lines + 1, 0},
		{"lines of NULs", cat(whole, nul, []byte("\n"), nul, []byte("\n"), nul), lines + 1, 0},
		{"NULs then blank lines", cat(whole, nul, []byte("\n \n\r\n")), lines + 1, 0},
		{"NULs in place of the last newline", cat(whole[:len(whole)-1], nul, []byte("\n")), lines, 1},
		{"NULs after half a line", cat(whole, []byte(`{"type":"user_message","tu`), nul), lines + 1, 0},
	}
}

func TestLogNulTailIsTorn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, _ := chatLog(t, dir)
	path := logFile(dir, id)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := session.LoadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range nulTails(whole, len(logLines(t, path))) {
		t.Run(tc.name, func(t *testing.T) {
			p := logFile(t.TempDir(), id)
			if err := os.WriteFile(p, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			evs, warns, err := session.LoadLog(p)
			if err != nil {
				t.Fatalf("LoadLog: %v; want the NUL tail skipped as torn", err)
			}
			if len(evs) != len(want)-tc.lost {
				t.Errorf("%d events, want %d", len(evs), len(want)-tc.lost)
			}
			if len(warns) != 1 || !strings.Contains(warns[0], fmt.Sprintf("line %d was cut off by a crash", tc.line)) ||
				!strings.Contains(warns[0], p) {
				t.Errorf("warnings %q, want one naming line %d of %s", warns, tc.line, p)
			}
		})
	}
}

// A resumed session repairs the NUL tail before it appends: what it writes
// starts a line of its own, the log loads without a warning afterwards, and
// nothing logged before the crash is lost.
func TestLogNulTailResumeAndAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, history := chatLog(t, dir)
	path := logFile(dir, id)
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range nulTails(whole, len(logLines(t, path))) {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			p := logFile(d, id)
			if err := os.WriteFile(p, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			before, _, err := session.LoadLog(p)
			if err != nil {
				t.Fatalf("LoadLog: %v", err)
			}
			ol := newServer(t, logModel)
			ol.Script(ollamatest.TextTurn("Still here."))
			s, res := resume(t, logOptions(ol, d, nil, permissions.ReadOnly), d, id)
			if len(res.Warnings) != 1 {
				t.Errorf("Resume warnings %q, want the torn tail named", res.Warnings)
			}
			if tc.lost == 0 {
				if got := s.History(); !reflect.DeepEqual(got, history) {
					t.Errorf("resumed history\n%+v\nwant\n%+v", got, history)
				}
			}
			r := startLogged(t, s)
			send(t, s, "are you there?")
			finishedWith(t, r.turn(), session.ReasonStop)
			s.Close()

			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.IndexByte(data, 0) >= 0 {
				t.Errorf("the log still holds NUL bytes after the resumed session wrote to it (openLog's repair, endTornLine, must cut them first)")
			}
			evs, warns, err := session.LoadLog(p)
			if err != nil {
				t.Fatalf("LoadLog after the resumed session wrote to the log: %v", err)
			}
			if len(warns) != 0 {
				t.Errorf("warnings after the resumed session wrote to the log: %q", warns)
			}
			if !reflect.DeepEqual(evs[:len(before)], before) {
				t.Errorf("the events read at resume changed after the append")
			}
			if um := of[*session.UserMessage](evs); len(um) != 3 || um[2].Text != "are you there?" {
				t.Errorf("user messages after resume: %+v", um)
			}
		})
	}
}
