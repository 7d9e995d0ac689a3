package cli

// The completion menu end to end: the real binary in a pty (see
// pty_test.go), keys as a terminal sends them.

import (
	"strings"
	"testing"
	"time"
)

// keyDown is ↓ as the terminal sends it.
const keyDown = "\x1b[B"

// menuSelected is the row of the completion menu marked selected, or "".
func menuSelected(s string) string {
	for _, r := range screenRows(s) {
		if r = strings.Trim(strings.TrimSpace(r), "│ "); strings.HasPrefix(r, "› /") {
			return r
		}
	}
	return ""
}

// chatUnderMenu is the chat's rows without those of a box over it.
func chatUnderMenu(s string) string {
	rows := screenRows(s)
	var out []string
	for _, r := range rows[1:max(inputRow(s)-1, 1)] {
		if !strings.ContainsAny(r, "│╭╰") {
			out = append(out, strings.TrimSpace(r))
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// TestE2ECompletionMenu: /mo and Tab complete /mode and open the menu over
// /model, /models and /mode, /model selected; ↓ selects /models; Enter
// takes it into the input and sends nothing (no command ran, the model got
// nothing); Enter again runs it.
func TestE2ECompletionMenu(t *testing.T) {
	fake := newFake(t)
	tm := startE2E(t, fake.Host())
	tm.typeKeys("/mo")
	tm.waitScreen(t, 5*time.Second, "/mo in the input", func(s string) bool { return inputText(s) == "/mo" })
	tm.sendKey("\t")
	scr := waitSettled(t, tm, 5*time.Second, "the menu open on /model", func(s string) bool {
		return inputText(s) == "/mode" && strings.HasPrefix(menuSelected(s), "› /model ") && strings.Contains(s, "/models")
	})
	before := chatUnderMenu(scr)
	tm.sendKey(keyDown)
	waitSettled(t, tm, 5*time.Second, "/models selected", func(s string) bool {
		return strings.HasPrefix(menuSelected(s), "› /models ") && inputText(s) == "/mode"
	})
	tm.sendKey(keyEnter)
	scr = waitSettled(t, tm, 5*time.Second, "/models taken, the menu closed", func(s string) bool {
		return inputText(s) == "/models" && menuSelected(s) == "" && !strings.Contains(s, "enter takes")
	})
	if after := chatUnderMenu(scr); after != before || strings.Contains(scr, "unknown command") {
		t.Errorf("Enter on the menu sent something; the chat was\n%s\nand is\n%s", before, after)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
	tm.sendKey(keyEnter)
	waitSettled(t, tm, 5*time.Second, "/models run by the next Enter", func(s string) bool {
		return strings.Contains(chatText(s), "MODEL") && strings.Contains(chatText(s), e2eModel)
	})
	quitAndCheck(t, tm)
}
