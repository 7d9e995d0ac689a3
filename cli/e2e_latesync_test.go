package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// TestE2ESyncAnswerComesLate: the terminal answers the question about
// synchronized output only after latch gave up waiting for it and opened
// its screen, as on a slow ssh link or a busy machine. The answer is no
// text in the input, and the frames drawn after it are bracketed by
// synchronized output, as when it came in time. Before, latch drew
// without synchronized output for the whole chat (TestScreenE2E failed
// so under load).
func TestE2ESyncAnswerComesLate(t *testing.T) {
	fake := newFake(t)
	fake.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("The late answer changed nothing you can read: green tea."),
		Delay: 5 * time.Millisecond})
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 24, Cols: 80, Host: fake.Host(), Args: []string{"--model", e2eModel},
		LateSyncAnswer: true})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool {
		return strings.HasPrefix(statusLine(s), " latch │ "+e2eModel+" │ ") && inputRow(s) >= 0
	})
	firstFrames := len(tm.rawOutput())

	sendPrompt(t, tm, "Say something")
	scr := tm.waitScreen(t, 15*time.Second, "the reply", func(s string) bool {
		return strings.Contains(chatText(s), "green tea.") && strings.Contains(statusLine(s), "tok/s")
	})
	if in := inputText(scr); in != "" && !strings.HasPrefix(in, "Ask anything") {
		t.Errorf("the input is %q after the reply: the late answer was taken for keys", in)
	}
	if c := chatText(scr); strings.Contains(c, "2026") || strings.Contains(c, "$y") || strings.Contains(c, "62;22c") {
		t.Errorf("the late answer is on screen:\n%s", dumpScreen(scr))
	}
	if !hasUserMessage(fake, "Say something") {
		t.Errorf("the prompt was not sent as typed; requests: %+v", fake.Requests())
	}
	if raw := tm.rawOutput(); !bytes.Contains(raw[firstFrames:], []byte(syncBracket)) {
		t.Errorf("no frame after the late answer is bracketed by synchronized output")
	}
	quitAndCheck(t, tm) // the brackets balanced, off at the end, the question asked once
}

// syncBracket opens a frame drawn in synchronized output.
const syncBracket = "\x1b[?2026h"
