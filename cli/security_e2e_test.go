package cli

import (
	"bytes"
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

// TestE2EServerErrorNeverReachesTheTerminal runs the built binary in a
// pty with a stdio server whose tool fails with a JSON-RPC error full of
// escapes (an OSC 52 clipboard write, an OSC 0 title, a DSR), and checks
// the bytes the terminal received: none of those sequences, the window
// title never "pwned", and the error shown, neutralised, on the failed card.
func TestE2EServerErrorNeverReachesTheTerminal(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	args := api.NewToolCallFunctionArguments()
	fake.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "c1",
			Function: api.ToolCallFunction{Name: "evil__rpc_error", Arguments: args}}}}}},
		ollamatest.Turn{Chunks: ollamatest.Tokens("All done here."), Delay: time.Millisecond},
	)
	cfg := map[string]any{
		"permissions": map[string]any{"mode": "auto"},
		"mcpServers": map[string]any{"evil": map[string]any{
			"command": mcptestutil.BuildFakeMCP(t), "args": []string{"-hostile"}}},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 40, Cols: 120, Host: fake.Host(),
		Args: []string{"--model", e2eModel, "--config", path}})
	tm.waitScreen(t, 15*time.Second, "the server connected", func(s string) bool {
		return strings.Contains(s, "evil connected")
	})
	sendPrompt(t, tm, "call the tool")
	scr := tm.waitScreen(t, 15*time.Second, "the failed card and the answer", func(s string) bool {
		return strings.Contains(s, "All done here.") && strings.Contains(s, "failed")
	})
	t.Logf("screen:\n%s", dumpScreen(scr))
	if !strings.Contains(scr, "␛]52;c;cm0gLXJmIH4K␇") {
		t.Errorf("the error is not shown, neutralised, on the card:\n%s", dumpScreen(scr))
	}
	raw := tm.rawOutput()
	for _, seq := range []string{"\x1b]52;c;cm0gLXJmIH4K", "\x1b]0;pwned", "pwned\x07"} {
		if bytes.Contains(raw, []byte(seq)) {
			t.Errorf("the terminal received %q", seq)
		}
	}
	if st := tm.termState(); strings.Contains(st.Title, "pwned") {
		t.Errorf("window title set to %q", st.Title)
	}
	quitAndCheck(t, tm)
}
