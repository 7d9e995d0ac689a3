package inbox

import (
	"strings"
	"testing"
	"time"

	"latch/session"
	"latch/ui/notice"
)

// TestInboxHostileTextIsInert: what a client or server chose (client
// name, tool, server, arguments, the rule's origin, a reason and who
// decided) reaches the screen with every escape, bell and bidi control
// made visible: nothing can move the cursor, set the clipboard or reorder
// the line; nor can the tool's name get an escape into the notification.
func TestInboxHostileTextIsInert(t *testing.T) {
	evil := "x\x1b]52;c;SGVsbG8=\x07\x1b[2J\x1b[31m\u202e\u009b1;1H\r\nPLANTED"
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	calls := []Call{{ParkedCall: session.ParkedCall{Session: "s1", ApprovalID: "A1", CallID: "gw_1", Client: evil, Tool: evil,
		Server: evil, Arguments: map[string]any{evil: evil, "n": map[string]any{evil: []any{evil}}}, Parked: now, Expires: now.Add(time.Hour),
		Mode: evil, Rule: evil}}}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		s := &screen{t: t, now: now}
		s.m = New(Options{Source: func() ([]Call, error) { return calls, nil }, Now: func() time.Time { return s.now },
			Notice: notice.OSC777, Ring: func(seq string) { s.rung = append(s.rung, seq) }})
		s.m.Update(windowSize(size[0], size[1]))
		s.m.loaded = true // so that the first read rings
		s.read()
		s.m.note(notDecided(calls[0], "approved", "it was already "+outcome(session.ParkedCall{Decision: "rejected", By: evil, Reason: evil})))
		for _, k := range []string{"", "f", "/", "n"} {
			if k == "n" {
				s.press(time.Second, runes("n"), runes("n"))
				s.press(time.Second, runes(evil))
			} else if k != "" {
				s.press(time.Second, runes(k))
			}
			v := s.m.View()
			if strings.ContainsAny(v, "\x1b\x07\u202e\u009b\r") {
				t.Fatalf("%dx%d after %q: a control reached the screen: %q", size[0], size[1], k, v)
			}
			if strings.Contains(v, "\nPLANTED") {
				t.Errorf("a planted line starts a row of the screen:\n%s", v)
			}
			assertFits(t, v, size[0], size[1])
		}
		if len(s.rung) != 1 || strings.Count(s.rung[0], "\x1b") != 1 || strings.Count(s.rung[0], "\a") != 2 {
			t.Errorf("rung %q: the tool's name put controls into the notification", s.rung)
		}
	}
}
