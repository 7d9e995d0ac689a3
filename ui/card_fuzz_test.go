package ui

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"latch/session"
	"latch/themes"
)

// FuzzCard feeds arbitrary bytes as a server's error, a progress message,
// a result, a tool name, an approval id and an argument into a tool card,
// in every state, both straight into the card and as events through the
// UI's intake, and checks that what is drawn holds no control character
// but the newlines between lines: no ESC, BEL, C1 or bidi control.
//
// go test -run '^$' -fuzz FuzzCard -fuzztime 1m ./ui/
func FuzzCard(f *testing.F) {
	f.Add("\x1b]52;c;cm0gLXJmIH4K\x07", "\x1b[6n", "ok\x1b[201~rm -rf ~\r\n", "srv__t\u202eool", "a1\x1b[2J", "\u009b31m")
	f.Add("plain error", "50%", "line one\nline two\ttab", "fs__read", "a-3", "/tmp/x")
	f.Add("\xff\xfe\xc2", "\r\r\r", strings.Repeat("\x08", 40), "\u2066x\u2069", "\x1bP+q\x1b\\", "\u061c")
	st := themes.Default()
	sess := session.New(session.Options{ID: "20261201-000000-fuzz00"})
	defer sess.Close()
	f.Fuzz(func(t *testing.T, errText, progress, result, tool, approval, arg string) {
		now := time.Unix(1_700_000_000, 0)
		base := card{callID: "c1", server: "srv", tool: tool, args: map[string]any{arg: arg},
			approval: approval, reason: errText, progMsg: progress, progress: 1, total: 2, preview: result,
			size: len(result), clock: func() time.Time { return now }}
		for s := cardRequested; s <= cardError; s++ {
			for _, expand := range []bool{false, true} {
				c := base
				c.state = s
				checkDrawn(t, "card", c.layout(&st, 60, expand))
			}
		}
		// The same text as events, through the intake every event takes.
		m := New(Options{Backend: sess, Styles: st, FrameInterval: -1})
		m.replaying = true // no modal opens
		h := session.Header{}
		evs := []session.Event{
			&session.ToolCallEvent{Header: h, Turn: 1, CallID: "c1", Server: "srv", Tool: tool, Arguments: map[string]any{arg: arg}},
			&session.PermissionEvent{Header: h, Turn: 1, CallID: "c1", Decision: "allowed"},
			&session.ToolProgress{Header: h, CallID: "c1", Progress: 1, Total: 2, Message: progress},
			&session.ToolCallEvent{Header: h, Turn: 1, CallID: "c2", Tool: tool},
			&session.PermissionEvent{Header: h, Turn: 1, CallID: "c2", Decision: "allowed"},
			&session.ToolResultEvent{Header: h, Turn: 1, CallID: "c2", Error: errText},
			&session.ToolCallEvent{Header: h, Turn: 1, CallID: "c3", Tool: tool},
			&session.PermissionEvent{Header: h, Turn: 1, CallID: "c3", Decision: "allowed"},
			&session.ToolResultEvent{Header: h, Turn: 1, CallID: "c3", OK: true, Preview: result, Size: len(result)},
			&session.ToolCallEvent{Header: h, Turn: 1, CallID: "c4", Tool: tool},
			&session.ApprovalParkedEvent{Header: h, Turn: 1, CallID: "c4", ApprovalID: approval, Tool: tool},
		}
		for _, e := range evs {
			m.handleEvent(e)
		}
		for _, en := range m.cards {
			checkDrawn(t, "event card", en.card.layout(&st, 60, true))
		}
	})
}

// checkDrawn fails on any control character in the drawn lines.
func checkDrawn(t *testing.T, where string, lines []string) {
	t.Helper()
	for _, l := range lines {
		for i, r := range l {
			if r == utf8.RuneError {
				continue
			}
			if r < 0x20 || r == 0x7f || (0x80 <= r && r < 0xa0) || r == 0x061c || r == 0x200e || r == 0x200f ||
				(0x202a <= r && r <= 0x202e) || (0x2066 <= r && r <= 0x2069) {
				t.Fatalf("%s: %U at byte %d of %q", where, r, i, l)
			}
		}
		if !utf8.ValidString(l) {
			t.Fatalf("%s: invalid UTF-8 in %q", where, l)
		}
	}
}
