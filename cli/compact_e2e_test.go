package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// compactRig is what the compaction's end-to-end test runs against: the
// fake Ollama, or a real one (fake nil).
type compactRig struct {
	host, model string
	fake        *ollamatest.Server
}

// TestE2ECompactionFake: compaction end to end in the built binary, in a
// pty, against the fake Ollama (see compactionEndToEnd).
func TestE2ECompactionFake(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion"}})
	t.Cleanup(fake.Close)
	// About 150 tokens a reply, as the fake counts them; the prompts add
	// about 100 each.
	fake.SetDefault(ollamatest.TextTurn(strings.TrimSpace(strings.Repeat("lorem ", 150))))
	fake.Answer(ollamatest.LastUserHas("Summarize the conversation above"),
		ollamatest.TextTurn("SUMMARY: the person sent numbered lines of w."))
	compactionEndToEnd(t, compactRig{host: fake.Host(), model: e2eModel, fake: fake})
}

// TestE2ECompactionRealOllama is the same against a real Ollama server
// whose URL LATCH_REAL_OLLAMA gives, with the tiny test model of
// ../shared/realollama (its words are nonsense, its tokens bytes: the
// mechanism around them is real).
func TestE2ECompactionRealOllama(t *testing.T) {
	host := os.Getenv("LATCH_REAL_OLLAMA")
	if host == "" {
		t.Skip("SKIPPED: LATCH_REAL_OLLAMA is not set — compaction was NOT tested against a real Ollama. " +
			"Set it to a server's URL holding the `tiny` model (../shared/realollama/build.sh) to run it.")
	}
	compactionEndToEnd(t, compactRig{host: host, model: "tiny"})
}

// TestE2ECompactionFailsFake: a summary cut at the length limit changes
// nothing, against the fake (see compactionFailsEndToEnd).
func TestE2ECompactionFailsFake(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion"}})
	t.Cleanup(fake.Close)
	fake.SetDefault(ollamatest.TextTurn("ok"))
	fake.Answer(ollamatest.LastUserHas("Summarize the conversation above"),
		ollamatest.Turn{Chunks: ollamatest.Tokens("SUMMARY that never ends"), DoneReason: "length"})
	compactionFailsEndToEnd(t, compactRig{host: fake.Host(), model: e2eModel, fake: fake}, "")
}

// TestE2ECompactionFailsRealOllama is the same against a real Ollama
// (LATCH_REAL_OLLAMA): tiny-long never ends its reply, so with num_predict
// 16 every reply, the summary too, stops at the length limit.
func TestE2ECompactionFailsRealOllama(t *testing.T) {
	host := os.Getenv("LATCH_REAL_OLLAMA")
	if host == "" {
		t.Skip("SKIPPED: LATCH_REAL_OLLAMA is not set — a failing summary was NOT tested against a real Ollama. " +
			"Set it to a server's URL holding the `tiny-long` model (../shared/realollama/build.sh) to run it.")
	}
	compactionFailsEndToEnd(t, compactRig{host: host, model: "tiny-long"}, `, "num_predict": 16`)
}

// compactionFailsEndToEnd: /compact whose summary is cut at the length
// limit says so on its card, and the next turn's prompt is the whole
// conversation (no summary in the log's view, every prompt sent).
func compactionFailsEndToEnd(t *testing.T, rig compactRig, options string) {
	state := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"ollama": {"options": {"num_ctx": 4096`+options+`}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + state, "LATCH_CONFIG=" + cfg}
	tm := startLatch(t, latchBinary(t, mcptestutil.RaceEnabled), ptyOptions{Rows: 40, Cols: 120, Host: rig.host,
		Args: []string{"--model", rig.model}, Env: env})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool { return inputRow(s) >= 0 })
	dir := filepath.Join(state, "latch", "sessions")
	for i := 1; i <= 4; i++ {
		sendLong(t, tm, fmt.Sprintf("MARK%02d", i))
		waitLog(t, dir, fmt.Sprintf("turn %d's end", i), func(evs []session.Event) bool {
			return len(ofType[*session.TurnDone](evs)) >= i
		})
	}
	// The chat draws the end a moment after the log has it; /compact is
	// meant after the end as the person sees it (typed before, it would
	// wait for it in the queue).
	waitTurnDrawn(t, tm, "MARK04")
	sendLong(t, tm, "/compact")
	scr := tm.waitScreen(t, 30*time.Second, "the failed compaction's card", func(s string) bool {
		return strings.Contains(chatText(s), "compaction failed, nothing changed") && strings.Contains(chatText(s), `done_reason "length"`)
	})
	t.Logf("after /compact:\n%s", dumpScreen(scr))
	before := ofType[*session.TurnDone](readLog(t, dir))[3].Metrics.PromptTokens
	sendLong(t, tm, "MARK05")
	evs := waitLog(t, dir, "the turn after the failed compaction", func(evs []session.Event) bool {
		return len(ofType[*session.TurnDone](evs)) >= 5
	})
	if after := ofType[*session.TurnDone](evs)[4].Metrics.PromptTokens; after <= before {
		t.Errorf("the prompt after a failed compaction is %d tokens, not more than the %d before it: the history changed", after, before)
	}
	if rig.fake != nil {
		reqs := rig.fake.Requests()
		last := reqs[len(reqs)-1]
		if strings.Contains(last.Messages[0].Content, "SUMMARY") || last.Messages[0].Content != "MARK01" {
			t.Errorf("the request after a failed compaction does not start with the first prompt: %.60q", last.Messages[0].Content)
		}
	}
	quitAndCheck(t, tm)
}

// compactionEndToEnd: a 4k context filled by a long chat is compacted
// once, on its own, before the turn after the one whose prompt passed
// 80 %; the card shows, the next prompt fits well under the limit, the
// log keeps every message, and --resume shows the compacted state and
// sends it.
func compactionEndToEnd(t *testing.T, rig compactRig) {
	state := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"ollama": {"options": {"num_ctx": 4096}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + state, "LATCH_CONFIG=" + cfg}
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 40, Cols: 120, Host: rig.host, Args: []string{"--model", rig.model}, Env: env})
	tm.waitScreen(t, 10*time.Second, "the first screen", func(s string) bool { return inputRow(s) >= 0 })
	dir := filepath.Join(state, "latch", "sessions")

	compactedAt := 0
	for i := 1; compactedAt == 0; i++ {
		if i > 20 {
			t.Fatalf("no compaction in 20 turns; screen:\n%s", dumpScreen(tm.screen()))
		}
		sendLong(t, tm, compactPrompt(i))
		evs := waitLog(t, dir, fmt.Sprintf("turn %d's end", i), func(evs []session.Event) bool {
			return len(ofType[*session.TurnDone](evs)) >= i
		})
		for _, c := range ofType[*session.CompactionEvent](evs) {
			if c.Step == session.CompactDone {
				compactedAt = i
			}
		}
		if d := ofType[*session.TurnDone](evs)[i-1]; d.Reason != session.ReasonStop {
			t.Fatalf("turn %d ended %q; screen:\n%s", i, d.Reason, dumpScreen(tm.screen()))
		}
	}
	scr := tm.waitScreen(t, 10*time.Second, "the summary card", func(s string) bool {
		return strings.Contains(chatText(s), "compacted turns") && strings.Contains(chatText(s), "regained")
	})
	t.Logf("after the compaction:\n%s", dumpScreen(scr))
	evs := readLog(t, dir)
	cs := ofType[*session.CompactionEvent](evs)
	if len(cs) != 2 || !cs[0].Auto || cs[1].Step != session.CompactDone || cs[1].Summary == "" {
		t.Fatalf("want one automatic compaction, started and done, with its summary; got %+v", cs)
	}
	dones := ofType[*session.TurnDone](evs)
	before, after := dones[compactedAt-2].Metrics.PromptTokens, dones[compactedAt-1].Metrics.PromptTokens
	if before+dones[compactedAt-2].Metrics.EvalTokens < 4096*80/100 || after >= before || after >= 4096*80/100 {
		t.Errorf("prompt %d tokens before the compaction, %d after: want over 80 %% of 4096, then well under", before, after)
	}
	users := 0
	for _, m := range ofType[*session.MessageEvent](evs) {
		if m.Role == "user" && strings.HasPrefix(m.Content, "MARK") {
			users++
		}
	}
	if users != compactedAt {
		t.Errorf("the log holds %d of the %d prompts", users, compactedAt)
	}
	if rig.fake != nil {
		reqs := rig.fake.Requests()
		last := reqs[len(reqs)-1]
		if !strings.Contains(last.Messages[0].Content, "SUMMARY: the person") || strings.Contains(last.Messages[1].Content, "MARK01") {
			t.Errorf("the request after the compaction does not open with the summary: %.80q", last.Messages[0].Content)
		}
	}
	quitAndCheck(t, tm)

	// --resume shows the compacted state, and sends it.
	id := strings.TrimSuffix(filepath.Base(logPath(t, dir)), ".jsonl")
	tm = startLatch(t, bin, ptyOptions{Rows: 40, Cols: 120, Host: rig.host, Args: []string{"--resume", id}, Env: env})
	scr = tm.waitScreen(t, 15*time.Second, "the resumed session with the summary card", func(s string) bool {
		return strings.Contains(chatText(s), "compacted turns") && inputRow(s) >= 0
	})
	t.Logf("resumed:\n%s", dumpScreen(scr))
	sendLong(t, tm, "MARKZZ and now?")
	evs = waitLog(t, dir, "the resumed turn's end", func(evs []session.Event) bool {
		return len(ofType[*session.TurnDone](evs)) > compactedAt
	})
	dones = ofType[*session.TurnDone](evs)
	if resumed := dones[len(dones)-1].Metrics.PromptTokens; resumed >= before {
		t.Errorf("the resumed session's prompt is %d tokens, as large as before the compaction (%d): not compacted", resumed, before)
	}
	if rig.fake != nil {
		reqs := rig.fake.Requests()
		if last := reqs[len(reqs)-1]; !strings.Contains(last.Messages[0].Content, "SUMMARY: the person") {
			t.Errorf("the resumed session's request does not open with the summary")
		}
	}
	quitAndCheck(t, tm)
}

// compactPrompt is turn i's prompt: about 100 tokens for the fake, 200
// bytes (tokens) for the tiny model. It ends with a mark of its own, so
// that the input line (which shows the end of a long text) tells when it
// is all typed.
func compactPrompt(i int) string {
	return fmt.Sprintf("MARK%02d %s END%02d", i, strings.TrimSpace(strings.Repeat("w ", 100)), i)
}

// sendLong types text, waits until the input line shows its end (a long
// text scrolls in it), and presses Enter.
func sendLong(t *testing.T, tm *ptyTerm, text string) {
	t.Helper()
	tm.typeKeys(text)
	tail := text[max(len(text)-40, 0):]
	tm.waitScreen(t, 5*time.Second, "the prompt in the input", func(s string) bool {
		return strings.HasSuffix(inputText(s), tail)
	})
	tm.sendKey(keyEnter)
}

// waitTurnDrawn waits until the chat shows the turn whose prompt holds
// mark as ended: the prompt is drawn, and the status line shows the
// reply's speed (while a turn runs it says "streaming…").
func waitTurnDrawn(t *testing.T, tm *ptyTerm, mark string) {
	t.Helper()
	tm.waitScreen(t, 30*time.Second, "the end of the turn "+mark+" drawn", func(s string) bool {
		return strings.Contains(chatText(s), mark) && strings.Contains(statusLine(s), "tok/s")
	})
}

// logPath is the one session log in dir.
func logPath(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("%d session logs in %s, want 1", len(logs), dir)
	}
	return logs[0]
}

// readLog reads the one session log in dir.
func readLog(t *testing.T, dir string) []session.Event {
	t.Helper()
	evs, _, err := session.LoadLog(logPath(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// waitLog polls the session log until cond holds of its events.
func waitLog(t *testing.T, dir, what string, cond func([]session.Event) bool) []session.Event {
	t.Helper()
	deadline := time.Now().Add(mcptestutil.HangBound(30 * time.Second))
	for {
		if logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(logs) == 1 {
			if evs, _, err := session.LoadLog(logs[0]); err == nil && cond(evs) {
				return evs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s in the log", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ofType are the events of type T, in order.
func ofType[T session.Event](evs []session.Event) []T {
	var out []T
	for _, e := range evs {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}
