package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"latch/session"
)

// copyHarness is a chat with a message, a reply holding two code blocks,
// and a tool result with escapes in it; its clipboard is kept.
func copyHarness(t *testing.T) (*fakeHarness, *[]string) {
	t.Helper()
	fh := newFakeHarness(t, 80, 30)
	var clips []string
	fh.m.clipboard = clipboardDoor(surely(func(s string) { clips = append(clips, s) }))
	hd := session.Header{}
	reply := "Here:\n\n```go\nfmt.Println(\"hi\")\nx := 1\n```\n\nand\n\n~~~\nls -l\n~~~\n"
	fh.m.replaying = true // no modal opens
	fh.feed(&session.UserMessage{Header: hd, Turn: 1, Text: "show me code"},
		&session.AssistantMessage{Header: hd, Turn: 1, Content: reply},
		&session.ToolCallEvent{Header: hd, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__read"},
		&session.PermissionEvent{Header: hd, Turn: 1, CallID: "c1", Decision: "allowed"},
		&session.ToolResultEvent{Header: hd, Turn: 1, CallID: "c1", Tool: "fs__read", OK: true,
			Preview: "line one\x1b]52;c;ZXZpbA==\x07\nline two", Size: 30},
		&session.TurnDone{Header: hd, Turn: 1, Reason: session.ReasonStop})
	fh.m.replaying = false
	return fh, &clips
}

// copyNotices are the chat's lines that say what was copied.
func copyNotices(m *Model) []string {
	var out []string
	for _, e := range m.chat.entries {
		if e.kind == noticeEntry && strings.HasPrefix(e.text, "copied") {
			out = append(out, e.text)
		}
	}
	return out
}

// TestCopyModeCopiesTheChosenEntry: Ctrl+G lists what can be copied, the
// newest chosen; ↑/k move; Enter or y copies the chosen one: a code block
// is its code alone (no fences, no language), a tool result its text
// without escapes; the chat says how many lines were copied; Esc leaves.
func TestCopyModeCopiesTheChosenEntry(t *testing.T) {
	fh, clips := copyHarness(t)
	for _, msg := range fh.press(tea.KeyMsg{Type: tea.KeyCtrlG}) {
		fh.m.Update(msg)
	}
	scr := ansi.Strip(fh.m.render())
	if !strings.Contains(scr, "result of fs__read") || !strings.Contains(scr, "go code block") ||
		!strings.Contains(scr, "enter or y copies") {
		t.Fatalf("ctrl+g shows no list of what to copy:\n%s", scr)
	}
	// The newest is the tool result: copy it.
	for _, msg := range fh.press(tea.KeyMsg{Type: tea.KeyEnter}) {
		fh.m.Update(msg)
	}
	// Then the go code block: two up from the second code block.
	fh.press(tea.KeyMsg{Type: tea.KeyCtrlG})
	fh.press(tea.KeyMsg{Type: tea.KeyUp})
	fh.press(runes("k"))
	for _, msg := range fh.press(runes("y")) {
		fh.m.Update(msg)
	}
	// And the message, at the top.
	fh.press(tea.KeyMsg{Type: tea.KeyCtrlG})
	fh.press(tea.KeyMsg{Type: tea.KeyHome})
	for _, msg := range fh.press(tea.KeyMsg{Type: tea.KeyEnter}) {
		fh.m.Update(msg)
	}
	want := []string{"fmt.Println(\"hi\")\nx := 1", "show me code"}
	if len(*clips) != 3 || strings.Join((*clips)[1:], "|") != strings.Join(want, "|") {
		t.Fatalf("copied %q, want the result, then %q", *clips, want)
	}
	if res := (*clips)[0]; !strings.HasPrefix(res, "line one") || !strings.HasSuffix(res, "\nline two") ||
		strings.ContainsAny(res, "\x1b\x07") {
		t.Errorf("the result copied is %q: want its two lines, no escapes", res)
	}
	notes := copyNotices(fh.m)
	if len(notes) != 3 || !strings.Contains(notes[0], "copied 2 lines (result of fs__read)") ||
		!strings.Contains(notes[1], "copied 2 lines (go code block)") || !strings.Contains(notes[2], "copied 1 line (your message)") {
		t.Errorf("notices %q", notes)
	}
	// Esc leaves without copying.
	fh.press(tea.KeyMsg{Type: tea.KeyCtrlG})
	fh.press(tea.KeyMsg{Type: tea.KeyEsc})
	if fh.m.copying != nil || len(*clips) != 3 {
		t.Errorf("esc: copy mode %v, copies %d", fh.m.copying != nil, len(*clips))
	}
	if strings.Contains(ansi.Strip(fh.m.render()), "enter or y copies") {
		t.Error("the list is still shown after esc")
	}
}

// TestCodeBlocks: a reply's code blocks, fenced or indented, are their
// code only.
func TestCodeBlocks(t *testing.T) {
	got := codeBlocks("intro\n\n```python\nprint(1)\n\nprint(2)\n```\n\ntext\n\n    indented\n\n````\n```\nnested\n```\n````\n")
	want := []codeBlock{{"python", "print(1)\n\nprint(2)"}, {"", "indented"}, {"", "```\nnested\n```"}}
	if len(got) != len(want) {
		t.Fatalf("blocks %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestMouseKey: the mouse is not taken unless asked (the hint line says a
// drag selects); F2 takes it (the wheel scrolls) and lets it go again,
// saying so each time.
func TestMouseKey(t *testing.T) {
	fh := newFakeHarness(t, 100, 20)
	if !strings.Contains(ansi.Strip(fh.m.hintLine()), "drag selects") {
		t.Errorf("the hint line says nothing of selecting: %q", ansi.Strip(fh.m.hintLine()))
	}
	got := fh.press(tea.KeyMsg{Type: tea.KeyF2})
	if len(got) != 1 || got[0] != tea.EnableMouseCellMotion() {
		t.Errorf("f2: %#v, want the mouse taken", got)
	}
	if !strings.Contains(allText(fh.m), "mouse on") || !strings.Contains(ansi.Strip(fh.m.hintLine()), "f2 frees the mouse") {
		t.Errorf("f2 did not say the mouse is on:\n%s", allText(fh.m))
	}
	got = fh.press(tea.KeyMsg{Type: tea.KeyF2})
	if len(got) != 1 || got[0] != tea.DisableMouse() {
		t.Errorf("f2 again: %#v, want the mouse let go", got)
	}
	if !strings.Contains(allText(fh.m), "mouse off: drag to select") {
		t.Errorf("f2 again did not say the mouse is off:\n%s", allText(fh.m))
	}
}
