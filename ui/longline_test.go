package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"latch/session"
)

// longWord is n bytes of base64-like text without a space.
func longWord(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[(i*7+i/64)%len(alphabet)]
	}
	return string(b)
}

// longLineEvents shows line in every place the chat lays text out: a user
// message, a streamed reply (in deltas of chunk bytes) and a finished one,
// a reply with the line in a code block, a notice, an error, and a tool card
// with it in its arguments and its result.
func longLineEvents(line string, chunk int) []session.Event {
	hd := session.Header{}
	evs := []session.Event{&session.UserMessage{Header: hd, Turn: 1, Text: line}}
	for i := 0; i < len(line); i += chunk {
		evs = append(evs, &session.AssistantDelta{Header: hd, Turn: 1, Text: line[i:min(i+chunk, len(line))]})
	}
	return append(evs,
		&session.AssistantMessage{Header: hd, Turn: 1, Content: line},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__write_file",
			Arguments: map[string]any{"content": line}},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "c1", Decision: "allowed", By: "policy"},
		&session.ToolResultEvent{Header: hd, Turn: 1, CallID: "c1", Tool: "fs__write_file", OK: true, Preview: line, Size: len(line)},
		&session.AssistantMessage{Header: hd, Turn: 1, Round: 1, Content: "```\n" + line + "\n```"},
		&session.Notice{Header: hd, Text: line},
		&session.Error{Header: hd, Turn: 1, Message: line},
		&session.TurnDone{Header: hd, Turn: 1, Reason: session.ReasonStop},
	)
}

// TestOneMegabyteLine lays a 1 MB line without spaces out everywhere the
// chat shows text, streams it, draws it, and scrolls through it: every line
// fits the screen and the text is all there.
func TestOneMegabyteLine(t *testing.T) {
	if testing.Short() {
		t.Skip("long (a line of a megabyte streamed and laid out): make test-e2e runs it")
	}
	const w, h = 100, 30
	line := longWord(1 << 20)
	fh := newFakeHarness(t, w, h)
	evs := longLineEvents(line, 16<<10)
	// The streamed reply, before it ends.
	for _, e := range evs[:len(evs)-8] {
		fh.feed(e)
		fh.m.View()
	}
	checkScreen(t, fh.m.View(), w, h)
	streamed := len(fh.m.chat.entries) - 1
	checkEntry(t, fh.m, streamed, "the streaming reply", line, w)
	fh.feed(evs[len(evs)-8:]...)
	checkScreen(t, fh.m.View(), w, h)

	names := []string{"the user message", "the reply", "the tool card", "the code block", "the notice", "the error"}
	if n := len(fh.m.chat.entries); n != len(names) {
		t.Fatalf("%d entries, want %d", n, len(names))
	}
	for i, name := range names {
		if i == 2 {
			continue // the card shows a preview of the arguments and result
		}
		checkEntry(t, fh.m, i, name, line, w)
	}
	var card strings.Builder
	for _, l := range entryText(fh.m, 2) {
		card.WriteString(strings.TrimPrefix(strings.TrimSpace(l), "│ "))
	}
	if strings.Count(card.String(), line) != 2 || !strings.Contains(card.String(), `"content":"`+line+`"`) {
		t.Errorf("the card does not show the arguments and the result whole")
	}
	// Scroll to the top and back; every frame fits.
	for i := 0; i < 5; i++ {
		fh.m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
		checkScreen(t, fh.m.View(), w, h)
	}
	fh.m.chat.topE, fh.m.chat.topLine, fh.m.chat.follow, fh.m.chat.dirty = 0, 0, false, true
	checkScreen(t, fh.m.View(), w, h)
	fh.m.Update(tea.KeyMsg{Type: tea.KeyCtrlEnd})
	checkScreen(t, fh.m.View(), w, h)
}

// checkEntry checks that entry i fits width and holds word whole.
func checkEntry(t *testing.T, m *Model, i int, name, word string, width int) {
	t.Helper()
	var b strings.Builder
	for _, seg := range m.chat.lines(i) {
		for _, l := range seg {
			if got := lipgloss.Width(l); got > width {
				t.Fatalf("%s: a line is %d cells wide on a %d-cell screen", name, got, width)
			}
			b.WriteString(strings.TrimSpace(ansi.Strip(l)))
		}
	}
	if !strings.Contains(b.String(), word) {
		t.Errorf("%s: the text is not all there (%d bytes shown)", name, b.Len())
	}
}

// BenchmarkWrapLongLine lays out one line without spaces, 10 KB, 100 KB and
// 1 MB long, everywhere the chat shows text (see longLineEvents), streamed
// in deltas of 1 KB, and draws the screen. The time must grow linearly
// with the line: 1MB costs about 100 times 10KB.
func BenchmarkWrapLongLine(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"10KB", 10 << 10}, {"100KB", 100 << 10}, {"1MB", 1 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			line := longWord(size.bytes)
			evs := longLineEvents(line, 1<<10)
			fh := newFakeHarness(b, 120, 40)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fh.m.chat.clear()
				fh.m.cards, fh.m.reply = map[string]*entry{}, nil
				for _, e := range evs {
					fh.m.Update(eventsMsg{events: []session.Event{e}})
					fh.m.View()
				}
				for k := range fh.m.chat.entries {
					fh.m.chat.lines(k)
				}
			}
		})
	}
}

// TestBreakLongWords: only words wider than the threshold are cut, into
// pieces of the wrap width; code is left alone.
func TestBreakLongWords(t *testing.T) {
	long := longWord(2000)
	url := "https://example.com/" + strings.Repeat("p", 300)
	md := "text " + long + " end\n" +
		"a [link](" + url + ") stays\n" +
		"```\n" + long + "\n```\n" +
		"    " + long + "\n" +
		"~~~~\n" + long + "\n~~~\nstill code " + long + "\n~~~~\n" +
		"`" + long + "`\n"
	got := breakLongWords(md, 70)
	lines := strings.Split(got, "\n")
	want := []int{-1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, -1}
	for i, l := range lines[:len(want)] {
		switch {
		case want[i] == 1 && !strings.Contains(l, long):
			t.Errorf("line %d (code) was changed", i)
		case want[i] == -1 && strings.Contains(l, long):
			t.Errorf("line %d kept its long word whole", i)
		}
	}
	if !strings.Contains(got, "("+url+")") {
		t.Error("a link shorter than the threshold was cut")
	}
	for _, w := range strings.Fields(lines[0]) {
		if len(w) > 70 {
			t.Errorf("a piece is %d wide, want at most 70", len(w))
		}
	}
	if strings.ReplaceAll(lines[0], " ", "") != "text"+long+"end" {
		t.Error("cutting lost text")
	}
	if s := "a\\" + strings.Repeat("b", 700); strings.Contains(breakLongWords(s, 70), "\\ ") {
		t.Error("a piece ends in a backslash, which escapes the space after it")
	}
}
