package cli

// The screen end to end: the real binary in a pty (see pty_test.go), with
// one stdio MCP server from the config file, through a long answer, a live
// theme switch, a resize, scrolling, the help overlay and completion.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// screenParagraph is paragraph i of the long answer.
func screenParagraph(i int) string {
	return fmt.Sprintf("Paragraph %02d: the reply goes on with enough words to wrap over more than one row "+
		"of the terminal, so that the whole answer is much taller than the screen, end%02d.", i, i)
}

const screenParagraphs = 24

var paragraphRE = regexp.MustCompile(`Paragraph (\d\d):`)

// visibleParagraphs lists the numbers of the paragraphs whose start is on
// the screen.
func visibleParagraphs(s string) []int {
	var out []int
	for _, m := range paragraphRE.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// resizeScreen resizes the pty as a user resizing the window does (the
// kernel sends latch SIGWINCH), and the screen model with it, as a terminal
// does: the cells are kept from the top left, cut or padded with blanks.
func resizeScreen(t *testing.T, tm *ptyTerm, rows, cols int) {
	t.Helper()
	tm.mu.Lock()
	v := tm.emu
	fit := func(b *vtBuf) {
		cells := make([][]vtCell, rows)
		for y := range cells {
			cells[y] = make([]vtCell, cols)
			if y < len(b.cells) {
				copy(cells[y], b.cells[y])
				if cols < len(b.cells[y]) && ansi.StringWidth(cells[y][cols-1].s) == 2 {
					cells[y][cols-1] = vtCell{} // a wide glyph cut in half
				}
			}
		}
		b.cells = cells
		b.x, b.y = min(b.x, cols-1), min(b.y, rows-1)
		b.savedX, b.savedY = min(b.savedX, cols-1), min(b.savedY, rows-1)
		b.wrapNext = false
		b.top, b.bottom = 0, rows-1
	}
	v.rows, v.cols = rows, cols
	fit(v.main)
	fit(v.alt)
	tm.mu.Unlock()
	if err := pty.Setsize(tm.master, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		t.Fatalf("pty.Setsize: %v", err)
	}
}

// waitSettled waits until cond holds on a whole frame: the screen is
// checked after every read, and a frame can arrive in several reads, so
// once cond holds it must still hold when no output came for a while.
func waitSettled(t *testing.T, tm *ptyTerm, timeout time.Duration, what string, cond func(string) bool) string {
	t.Helper()
	timeout = mcptestutil.HangBound(timeout) // a hang's bound, not a measure
	deadline := time.Now().Add(timeout)
	for {
		tm.waitScreen(t, max(time.Until(deadline), time.Millisecond), what, cond)
		tm.mu.Lock()
		ch := tm.changed
		tm.mu.Unlock()
		select {
		case <-ch: // more output: look again
		case <-time.After(150 * time.Millisecond):
			if s := tm.screen(); cond(s) {
				return s
			}
		}
	}
}

// popupText is the screen rows above the rule line that hold the
// completion popup (its box rows, "│ … │").
func popupText(s string) string {
	rows := screenRows(s)
	end := inputRow(s) - 1
	var out []string
	for i := max(end-12, 1); i >= 0 && i < end; i++ {
		if r := strings.TrimSpace(rows[i]); strings.HasPrefix(r, "│ /") || strings.HasPrefix(r, "│ tab completes") {
			out = append(out, r)
		}
	}
	return strings.Join(out, "\n")
}

func TestScreenE2E(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion"}})
	t.Cleanup(fake.Close)
	var paras []string
	for i := 1; i <= screenParagraphs; i++ {
		paras = append(paras, screenParagraph(i))
	}
	fake.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Join(paras, "\n\n")), Delay: time.Millisecond})

	mcpBin := mcptestutil.BuildFakeMCP(t)
	cfg := filepath.Join(t.TempDir(), "latch.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {"fake": {"command": %q}}}`, mcpBin)), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	const rows0, cols0 = 30, 100
	// The later LATCH_CONFIG wins over the empty one of cleanEnv.
	tm := startLatch(t, bin, ptyOptions{Rows: rows0, Cols: cols0, Host: fake.Host(),
		Args: []string{"--model", e2eModel}, Env: []string{"LATCH_CONFIG=" + cfg}})
	step := func(what string, s string) { t.Logf("%s:\n%s", what, dumpScreen(s)) }

	// 1. The first screen, with the server up.
	scr := waitSettled(t, tm, 20*time.Second, "the first screen with the server connected", func(s string) bool {
		return strings.HasPrefix(statusLine(s), " latch │ "+e2eModel+" │ ") && inputRow(s) == rows0-1 &&
			strings.Contains(statusLine(s), "servers 1/1")
	})
	step("first screen", scr)
	if !strings.Contains(chatText(scr), "fake connected") {
		t.Errorf("no notice of the server's connection; screen:\n%s", dumpScreen(scr))
	}

	// 2. A long answer: its end is on screen, its beginning scrolled away.
	sendPrompt(t, tm, "Tell me everything, at length")
	scr = waitSettled(t, tm, 30*time.Second, "the end of the long answer", func(s string) bool {
		return strings.Contains(chatText(s), "end24.") && strings.Contains(statusLine(s), "tok/s")
	})
	step("after the answer", scr)
	if vis := visibleParagraphs(scr); slices.Contains(vis, 1) || len(vis) == 0 {
		t.Errorf("paragraphs on screen %v: the answer should be taller than the screen", vis)
	}

	// 3. /theme light switches live.
	sendPrompt(t, tm, "/theme light")
	scr = waitSettled(t, tm, 10*time.Second, `the "theme: light" notice`, func(s string) bool {
		return strings.Contains(chatText(s), "theme: light") && inputText(s) != "/theme light"
	})
	step("after /theme light", scr)
	if st := statusLine(scr); !strings.HasPrefix(st, " latch │ "+e2eModel) || !strings.Contains(st, "servers 1/1") || !strings.Contains(st, "tok/s") {
		t.Errorf("the status line after /theme: %q", st)
	}
	if strings.Contains(chatText(scr), "theme:") && strings.Contains(chatText(scr), "✗") {
		t.Errorf("/theme light reported an error; screen:\n%s", dumpScreen(scr))
	}

	// 4. Resize: narrower and taller. Everything is drawn again at the new
	// size: the status line (whose right end, the token rate, only shows
	// when drawn at the new width), the rule and input at the new bottom,
	// and the chat reflowed, not cut.
	const rows1, cols1 = 48, 72
	resizeScreen(t, tm, rows1, cols1)
	scr = waitSettled(t, tm, 10*time.Second, "the screen redrawn at 72×48", func(s string) bool {
		st := strings.TrimRight(statusLine(s), " ")
		return inputRow(s) == rows1-1 && strings.HasPrefix(st, " latch │") && strings.HasSuffix(st, "tok/s") &&
			strings.Contains(chatText(s), "theme: light") && strings.Contains(chatText(s), screenParagraph(screenParagraphs))
	})
	step("after resizing to 72×48", scr)
	for i, r := range screenRows(scr) {
		if w := ansi.StringWidth(r); w > cols1 {
			t.Errorf("row %d is %d cells wide after resizing to %d:\n%s", i, w, cols1, dumpScreen(scr))
		}
	}
	// (The emulator's rows are trimmed: the rule ends in "… ".)
	if rule := screenRows(scr)[rows1-2]; !strings.HasPrefix(rule, "──") || ansi.StringWidth(rule) < cols1-1 {
		t.Errorf("the rule line is not redrawn %d wide: %q", cols1, rule)
	}
	vis := visibleParagraphs(scr)
	for _, n := range vis[1:] { // the first may start above the screen
		if !strings.Contains(chatText(scr), screenParagraph(n)) {
			t.Errorf("paragraph %d is not whole on screen after the resize (cut, not reflowed):\n%s", n, dumpScreen(scr))
		}
	}

	// 5. PgUp scrolls into the history.
	first := slices.Min(vis)
	tm.sendKey("\x1b[5~")
	scr = waitSettled(t, tm, 5*time.Second, "earlier text after PgUp", func(s string) bool {
		v := visibleParagraphs(s)
		return len(v) > 0 && slices.Min(v) < first && strings.Contains(statusLine(s), "↑ history")
	})
	step("after PgUp", scr)
	if strings.Contains(chatText(scr), "end24.") {
		t.Errorf("the end of the answer is still on screen after PgUp:\n%s", dumpScreen(scr))
	}

	// 6. ? opens the overview over the chat; on 48 rows it is a page
	// that scrolls, End shows the last.
	tm.typeKeys("?")
	scr = waitSettled(t, tm, 5*time.Second, "the help overlay", func(s string) bool {
		c := chatText(s)
		return strings.Contains(c, "Keys") && strings.Contains(c, "Commands") && strings.Contains(c, "esc or ? closes")
	})
	step("after ?", scr)
	if !strings.Contains(scr, "╭") || !strings.Contains(scr, "╰") {
		t.Errorf("the overview is not a box over the chat:\n%s", dumpScreen(scr))
	}
	tm.sendKey("\x1b[F") // End
	scr = waitSettled(t, tm, 5*time.Second, "the overview's last page", func(s string) bool {
		return strings.Contains(chatText(s), "/theme [NAME]") && strings.Contains(chatText(s), "esc or ? closes")
	})
	step("after End", scr)
	if inputText(scr) != "" && !strings.HasPrefix(inputText(scr), "Ask anything") {
		t.Errorf("? reached the input: %q", inputText(scr))
	}
	tm.sendKey(keyEsc)
	scr = waitSettled(t, tm, 5*time.Second, "the overlay closed by Esc", func(s string) bool {
		return !strings.Contains(s, "esc or ? closes") && !strings.Contains(chatText(s), "Commands") &&
			strings.Contains(statusLine(s), "↑ history")
	})
	step("after Esc", scr)
	if strings.ContainsAny(chatText(scr), "╭╮╰╯") {
		t.Errorf("a piece of the overlay is left on screen after Esc:\n%s", dumpScreen(scr))
	}

	// 7. Completion: /c offers /connect, /close and /clear; /conn only
	// /connect; Tab completes it, and the popup then offers the server.
	tm.typeKeys("/c")
	scr = waitSettled(t, tm, 5*time.Second, "the popup for /c", func(s string) bool {
		p := popupText(s)
		return inputText(s) == "/c" && strings.Contains(p, "/connect") && strings.Contains(p, "/close") && strings.Contains(p, "/clear")
	})
	step("after typing /c", scr)
	tm.typeKeys("onn")
	scr = waitSettled(t, tm, 5*time.Second, "the popup for /conn", func(s string) bool {
		p := popupText(s)
		return inputText(s) == "/conn" && strings.Contains(p, "/connect") && !strings.Contains(p, "/close") && !strings.Contains(p, "/context")
	})
	step("after typing /conn", scr)
	tm.sendKey("\t")
	scr = waitSettled(t, tm, 5*time.Second, "/connect completed, the popup offering the server", func(s string) bool {
		p := popupText(s)
		return inputText(s) == "/connect" && strings.Contains(p, "/connect fake") && strings.Contains(p, "/connect all")
	})
	step("after Tab", scr)
	for i, r := range screenRows(scr) {
		if w := ansi.StringWidth(r); w > cols1 {
			t.Errorf("row %d is %d cells wide:\n%s", i, w, dumpScreen(scr))
		}
		if strings.HasPrefix(strings.TrimSpace(r), "│ /connect") && strings.Count(r, "│") < 2 {
			t.Errorf("the popup's row %d lost its right border: %q", i, r)
		}
	}

	// 8. Ctrl+C quits, with status 0, leaving the terminal as it was.
	quitAndCheck(t, tm)
}
