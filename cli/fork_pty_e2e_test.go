package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// TestE2EForkInTheChat: /fork in the chat goes on in a new session with
// the conversation so far on the screen and in the model's next request;
// the session it came from keeps only what was said before the fork.
func TestE2EForkInTheChat(t *testing.T) {
	fake := newFake(t)
	fake.Script(ollamatest.TextTurn("Parsley is green."), ollamatest.TextTurn("Basil is green too."))
	state := t.TempDir()
	tm := startLatch(t, latchBinary(t, mcptestutil.RaceEnabled), ptyOptions{Rows: 24, Cols: 80, Host: fake.Host(),
		Args: []string{"--model", e2eModel}, Env: []string{"XDG_STATE_HOME=" + state}})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool { return inputRow(s) >= 0 })

	sendPrompt(t, tm, "what colour is parsley?")
	tm.waitScreen(t, 15*time.Second, "the first answer, done", func(s string) bool {
		return strings.Contains(chatText(s), "Parsley is green.") && strings.Contains(statusLine(s), "tok/s")
	})
	dir := filepath.Join(state, "latch", "sessions")
	logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("%d session logs before the fork, want 1", len(logs))
	}
	parent := strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl")

	sendPrompt(t, tm, "/fork")
	scr := tm.waitScreen(t, 15*time.Second, "the fork's screen with the conversation so far", func(s string) bool {
		c := chatText(s)
		return strings.Contains(c, "forked from session "+parent) && strings.Contains(c, "Parsley is green.") && inputRow(s) >= 0
	})
	t.Logf("after /fork:\n%s", dumpScreen(scr))
	sendPrompt(t, tm, "and basil?")
	tm.waitScreen(t, 15*time.Second, "the answer in the fork", func(s string) bool { return strings.Contains(chatText(s), "Basil is green too.") })
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) < 3 || last.Messages[0].Content != "what colour is parsley?" {
		t.Errorf("the fork's request %+v, want the conversation before the fork first", last.Messages)
	}
	quitAndCheck(t, tm)

	sums, err := session.List(dir)
	if err != nil || len(sums) != 2 {
		t.Fatalf("sessions after the fork: %+v, %v; want 2", sums, err)
	}
	for _, x := range sums {
		switch {
		case x.ID == parent && (x.Messages != 1 || x.Parent != ""):
			t.Errorf("the parent %+v, want its one prompt and no parent", x)
		case x.ID != parent && (x.Parent != parent || x.Messages != 2):
			t.Errorf("the fork %+v, want parent %s and both prompts", x, parent)
		}
	}
	if data, _ := os.ReadFile(logs[0]); strings.Contains(string(data), "basil") {
		t.Error("what was said in the fork is in the parent's log")
	}
}
