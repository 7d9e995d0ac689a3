package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// TestE2EBoxTakesKeysAfterPause: the built binary in a pty, in ask mode.
// The person sends a message with Enter; the model's call opens its
// question at once, too soon after the key to take the keys (it waits).
// The person reads it, and 1.5 s after Enter presses y: the call runs,
// and no y is left in the chat input.
func TestE2EBoxTakesKeysAfterPause(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	args := api.NewToolCallFunctionArguments()
	args.Set("a", 2)
	args.Set("b", 3)
	fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "c1",
		Function: api.ToolCallFunction{Name: "fake__add", Arguments: args}}}}}},
		ollamatest.TextTurn("The sum is in."))
	cfg, _ := json.Marshal(map[string]any{
		"permissions": map[string]any{"mode": "ask"},
		"mcpServers":  map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	})
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 30, Cols: 140, Host: fake.Host(),
		Args: []string{"--model", e2eModel, "--config", path}})
	tm.waitScreen(t, 15*time.Second, "the server connected", func(s string) bool {
		return inputRow(s) >= 0 && strings.Contains(statusLine(s), "servers 1/1")
	})
	sendPrompt(t, tm, "add two and three")
	enter := time.Now()
	scr := tm.waitSettled(t, 15*time.Second, "the question", func(s string) bool { return strings.Contains(s, "Allow this tool call?") })
	if !strings.Contains(unwrapped(scr), "tab to answer") {
		t.Logf("the question took a second to come up, so it did not wait (a slow machine):\n%s", dumpScreen(scr))
	}
	time.Sleep(time.Until(enter.Add(1500 * time.Millisecond))) // the person reading: human timing, not a measure
	tm.typeKeys("y")
	scr = tm.waitScreen(t, 15*time.Second, "the call run and answered", func(s string) bool {
		return strings.Contains(chatText(s), "The sum is in.") || inputText(s) == "y"
	})
	if in := inputText(scr); (in != "" && !strings.HasPrefix(in, "Ask anything")) || !strings.Contains(chatText(scr), "The sum is in.") {
		t.Fatalf("y 1.5 s after Enter did not answer the question (input %q):\n%s", inputText(scr), dumpScreen(scr))
	}
	if told := toolMessages(fake)["c1"]; told != "5" {
		t.Errorf("the model was told %q, want the call's result 5", told)
	}
	quitAndCheck(t, tm)
}
