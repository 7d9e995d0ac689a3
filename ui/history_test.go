package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// historyHarness is a fake harness whose session keeps its input history
// in file, as latch's does under the state folder.
func historyHarness(t *testing.T, file string) *fakeHarness {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: session.NewID(), HistoryFile: file})
	t.Cleanup(sess.Close)
	fh := &fakeHarness{t: t, b: &fakeBackend{Session: sess}, clock: fixedNow}
	fh.m = New(Options{Backend: fh.b, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fh.clock },
		DarkBackground: true, Getenv: func(string) string { return "" }, ConfigHome: t.TempDir(), Profile: termenv.Ascii})
	fh.m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return fh
}

// send types text and presses Enter.
func (fh *fakeHarness) send(text string) {
	fh.t.Helper()
	fh.m.input.set(text)
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
}

func (fh *fakeHarness) up()   { fh.press(tea.KeyMsg{Type: tea.KeyUp}) }
func (fh *fakeHarness) down() { fh.press(tea.KeyMsg{Type: tea.KeyDown}) }

func (fh *fakeHarness) wantInput(what, want string) {
	fh.t.Helper()
	if got := fh.m.input.value(); got != want {
		fh.t.Fatalf("%s: the input holds %q, want %q", what, got, want)
	}
}

// TestHistoryWalk: ↑ recalls the messages and commands sent, newest
// first, also those of an earlier latch (the same history file); ↓ goes
// back, and past the newest restores what was being typed. Consecutive
// duplicates come once; a multi-line entry comes whole, and ↑ on it goes
// on at once to the one before.
func TestHistoryWalk(t *testing.T) {
	file := filepath.Join(t.TempDir(), "latch", "history")
	first := historyHarness(t, file)
	first.send("hello from yesterday")
	first.send("/help")
	first.press(tea.KeyMsg{Type: tea.KeyEsc}) // closes the help

	fh := historyHarness(t, file)
	fh.send("line one\nline two\nline three")
	fh.send("same again")
	fh.send("same again")
	fh.press(runes("a draft"))
	for _, want := range []string{"same again", "line one\nline two\nline three", "/help", "hello from yesterday", "hello from yesterday"} {
		fh.up()
		fh.wantInput("↑", want)
	}
	for _, want := range []string{"/help", "line one\nline two\nline three", "same again", "a draft"} {
		fh.down()
		fh.wantInput("↓", want)
	}
	if sends := fh.b.sends; len(sends) != 3 {
		t.Fatalf("sent %q", sends)
	}
	// ↑ inside a multi-line text moves the cursor, not the history.
	fh.m.input.set("one\ntwo")
	fh.up()
	fh.wantInput("↑ on the second line", "one\ntwo")
	fh.up()
	fh.wantInput("↑ on the first line", "same again")
}

// TestHistoryNeverKeepsToken: a /token line is never written to the
// history file, not even one with a token typed after it by mistake, nor
// is the token typed into its masked prompt.
func TestHistoryNeverKeepsToken(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history")
	fh := historyHarness(t, file)
	fh.send("/token") // bad arguments: kept in the input
	fh.m.input.reset()
	fh.send("/token srv s3cr3t-typed-by-mistake")
	fh.m.input.reset()
	fh.send("an ordinary message")
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), "token") || strings.Contains(string(data), "s3cr3t") {
		t.Fatalf("the history file holds a /token line:\n%s", data)
	}
	if !strings.Contains(string(data), "an ordinary message") {
		t.Fatalf("the history file lacks the message:\n%s", data)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the history file: %v, mode %v", err, fi.Mode())
	}
}

// TestFailedCommandKeepsItsText: a slash command that fails (unknown,
// bad arguments) keeps its text in the input, to be fixed; one that works
// is cleared.
func TestFailedCommandKeepsItsText(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	for _, line := range []string{"/conect fs", "/mode sideways", "/clear now"} {
		fh.send(line)
		fh.wantInput("after "+line, line)
		fh.m.input.reset()
	}
	fh.send("/mode ask")
	fh.wantInput("after /mode ask", "")
	fh.up()
	fh.wantInput("↑ after the commands", "/mode ask")
	fh.up()
	fh.wantInput("↑ again: the failed ones are not in the history", "/mode ask")
}

// TestHistorySearch: Ctrl+R finds the newest entry holding what is typed
// (any case), Ctrl+R again an older one; Enter takes it into the input
// (it is not sent); Esc leaves the input as it was.
func TestHistorySearch(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	for _, s := range []string{"deploy the staging box", "list the files", "Deploy production", "what time is it"} {
		fh.send(s)
	}
	fh.press(runes("my draft"))
	fh.press(tea.KeyMsg{Type: tea.KeyCtrlR})
	fh.press(runes("deploy"))
	fh.wantInput("ctrl+r deploy", "Deploy production")
	if !strings.Contains(fh.hintRow(), `search history: "deploy"`) {
		t.Fatalf("no search line above the input:\n%s", fh.m.View())
	}
	fh.press(tea.KeyMsg{Type: tea.KeyCtrlR})
	fh.wantInput("ctrl+r again", "deploy the staging box")
	fh.press(tea.KeyMsg{Type: tea.KeyEsc})
	fh.wantInput("esc", "my draft")

	fh.press(tea.KeyMsg{Type: tea.KeyCtrlR})
	fh.press(runes("files"))
	fh.press(tea.KeyMsg{Type: tea.KeyEnter})
	fh.wantInput("enter", "list the files")
	if len(fh.b.sends) != 4 || fh.m.search != nil {
		t.Fatalf("enter in the search sent %q (searching %v)", fh.b.sends, fh.m.search != nil)
	}
	if strings.Contains(fh.hintRow(), "search history") {
		t.Fatalf("the search line stays:\n%s", fh.m.View())
	}
}

// TestHistoryUnwritable: when the history file cannot be written, latch
// says so once, and ↑ still recalls what was sent in this session.
func TestHistoryUnwritable(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fh := historyHarness(t, filepath.Join(notADir, "history"))
	fh.send("first")
	fh.send("second")
	if n := strings.Count(allText(fh.m), "cannot write the input history"); n != 1 {
		t.Fatalf("said %d times:\n%s", n, allText(fh.m))
	}
	fh.up()
	fh.wantInput("↑", "second")
}
