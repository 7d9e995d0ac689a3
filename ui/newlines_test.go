package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"latch/session"
)

// entryText is the text lines of the chat's entry i: styling stripped,
// trailing blanks trimmed, blank lines at both ends dropped.
func entryText(m *Model, i int) []string {
	var out []string
	for _, seg := range m.chat.lines(i) {
		for _, l := range seg {
			out = append(out, strings.TrimRight(ansi.Strip(l), " "))
		}
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// TestSingleNewlinesAreLineBreaks: a single newline in a reply is a line
// break while it streams and after it is rendered as a whole, so the reply
// does not reflow when it ends.
func TestSingleNewlinesAreLineBreaks(t *testing.T) {
	for reply, lines := range map[string][]string{
		"line one\nline two\n\npara":                 {"line one", "line two", "para"},
		"line one\nline two\n\npara one\npara two\n": {"line one", "line two", "para one", "para two"},
		"intro:\nfirst\nsecond\n\n- a\n- b\ncontinued\n\n```\ncode one\ncode two\n```\n\nend one\nend two": {
			"intro:", "first", "second", "code one", "code two", "end one", "end two"},
	} {
		fh := newFakeHarness(t, 80, 30)
		hd := session.Header{}
		fh.feed(&session.UserMessage{Header: hd, Turn: 1, Text: "lines please"})
		for _, r := range reply {
			fh.feed(&session.AssistantDelta{Header: hd, Turn: 1, Text: string(r)})
		}
		fh.m.View()
		last := len(fh.m.chat.entries) - 1
		streaming := entryText(fh.m, last)
		fh.feed(&session.AssistantMessage{Header: hd, Turn: 1, Content: reply},
			&session.TurnDone{Header: hd, Turn: 1, Reason: session.ReasonStop})
		fh.m.View()
		done := entryText(fh.m, last)
		for _, want := range lines {
			if !contains(streaming, want) || !contains(done, want) {
				t.Errorf("%q: %q is not a line of its own\nstreaming:\n%s\ndone:\n%s", reply, want,
					strings.Join(streaming, "\n"), strings.Join(done, "\n"))
			}
		}
		if strings.Join(streaming, "\n") != strings.Join(done, "\n") {
			t.Errorf("%q: the reply reflowed when it ended\nstreaming:\n%s\ndone:\n%s", reply,
				strings.Join(streaming, "\n"), strings.Join(done, "\n"))
		}
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}
