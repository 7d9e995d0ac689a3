package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
	"latch/themes"
)

// statusBg is the colour code of the status line's background in theme
// name (one that does not depend on the background), in 256 colours.
func statusBg(t *testing.T, name string) string {
	t.Helper()
	pal, err := themes.Lookup(name, true)
	if err != nil {
		t.Fatal(err)
	}
	return termenv.ANSI256.Color(pal.StatusBg).Sequence(true)
}

// TestE2EBackgroundAnswerComesLate: the terminal answers the question
// about its background (a light one) only after latch gave up waiting for
// it and opened its screen in the dark theme, as on a slow ssh link. Text
// pasted before it that looks like such an answer stays text in the input
// and changes nothing. When the answer comes, the chat is drawn again in
// the light theme; the answer is no text in the input. Before, the chat
// stayed dark to the end.
func TestE2EBackgroundAnswerComesLate(t *testing.T) {
	darkStatusBg, lightStatusBg := statusBg(t, "dark"), statusBg(t, "light")
	fake := newFake(t)
	fake.Script(ollamatest.Turn{Chunks: ollamatest.Tokens("Drawn on a light background: jasmine tea."),
		Delay: 5 * time.Millisecond})
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 24, Cols: 80, Host: fake.Host(), Args: []string{"--model", e2eModel},
		LateBackground: "ffff/ffff/ffff"})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool {
		return strings.HasPrefix(statusLine(s), " latch │ "+e2eModel+" │ ") && inputRow(s) >= 0
	})
	if raw := tm.rawOutput(); !bytes.Contains(raw, []byte(darkStatusBg)) || bytes.Contains(raw, []byte(lightStatusBg)) {
		t.Fatalf("the first screen is not in the dark theme (no answer yet): %q", raw)
	}

	// A paste that looks like the answer is text.
	tm.typeKeys("\x1b[200~\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[201~")
	tm.waitScreen(t, 10*time.Second, "the pasted text in the input", func(s string) bool {
		return strings.Contains(inputText(s), "11;rgb:ffff/ffff/ffff")
	})
	tm.sendKey("\x15") // Ctrl+U: the input emptied
	tm.waitScreen(t, 10*time.Second, "the input emptied", func(s string) bool {
		return inputText(s) == "" || strings.HasPrefix(inputText(s), "Ask anything")
	})
	if bytes.Contains(tm.rawOutput(), []byte(lightStatusBg)) {
		t.Fatal("a pasted text that looks like the answer changed the theme")
	}

	answered := len(tm.rawOutput())
	tm.answerBackground()
	tm.waitRaw(t, 10*time.Second, "the chat drawn in the light theme", func(raw []byte) bool {
		return bytes.Contains(raw[answered:], []byte(lightStatusBg))
	})
	switched := answered + bytes.Index(tm.rawOutput()[answered:], []byte(lightStatusBg))

	sendPrompt(t, tm, "Say something")
	scr := tm.waitScreen(t, 15*time.Second, "the reply", func(s string) bool {
		return strings.Contains(chatText(s), "jasmine tea.") && strings.Contains(statusLine(s), "tok/s")
	})
	if in := inputText(scr); in != "" && !strings.HasPrefix(in, "Ask anything") {
		t.Errorf("the input is %q after the reply: the late answer was taken for keys", in)
	}
	if c := chatText(scr); strings.Contains(c, "rgb:") || strings.Contains(c, "62;22c") {
		t.Errorf("the late answer is on screen:\n%s", dumpScreen(scr))
	}
	if !hasUserMessage(fake, "Say something") {
		t.Errorf("the prompt was not sent as typed; requests: %+v", fake.Requests())
	}
	if raw := tm.rawOutput(); bytes.Contains(raw[switched:], []byte(darkStatusBg)) {
		t.Errorf("a frame after the switch to the light theme is drawn in the dark theme's status colour")
	}
	quitAndCheck(t, tm)
}
