package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestE2EVSCodeInputAskedAtStart runs the built binary in a pty with a VS
// Code mcp.json whose stdio server takes its API key from
// ${input:api-key}: latch asks for it once, before the screen, without
// echoing it; the server gets the value; what the server writes of it to
// stderr shows redacted in /logs, and the value never reaches the terminal.
func TestE2EVSCodeInputAskedAtStart(t *testing.T) {
	const secret = "sk-typed-SECRET-4242"
	root := t.TempDir()
	got := filepath.Join(root, "key-the-server-got")
	cfg := map[string]any{
		"inputs": []map[string]any{{"type": "promptString", "id": "api-key", "description": "Search API key", "password": true}},
		"servers": map[string]any{"keyed": map[string]any{
			"type": "stdio", "command": "/bin/sh",
			"args": []string{"-c", `printf %s "$API_KEY" > "$OUT"; echo "got key $API_KEY" >&2; exec "$FAKE"`},
			"env":  map[string]string{"API_KEY": "${input:api-key}", "OUT": got, "FAKE": mcptestutil.BuildFakeMCP(t)},
		}},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(root, "mcp.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	fake := newFake(t)
	tm := startLatch(t, latchBinary(t, mcptestutil.RaceEnabled), ptyOptions{Rows: 30, Cols: 120, Host: fake.Host(),
		Args: []string{"--model", e2eModel, "--config", path}})
	tm.waitScreen(t, 15*time.Second, "the question for the input", func(s string) bool {
		return strings.Contains(unwrapped(s), "server keyed needs Search API key (${input:api-key})")
	})
	tm.typeKeys(secret)
	tm.sendKey(keyEnter)
	tm.waitScreen(t, 20*time.Second, "the server connected", func(s string) bool {
		return strings.Contains(statusLine(s), "servers 1/1")
	})
	if data, err := os.ReadFile(got); err != nil || string(data) != secret {
		t.Fatalf("the server got %q (%v), want the value typed", data, err)
	}
	sendPrompt(t, tm, "/logs keyed")
	scr := tm.waitScreen(t, 10*time.Second, "the server's stderr", func(s string) bool {
		return strings.Contains(s, "got key ")
	})
	if strings.Contains(scr, secret) {
		t.Errorf("the value is on screen:\n%s", dumpScreen(scr))
	}
	if bytes.Contains(tm.rawOutput(), []byte(secret)) {
		t.Error("the value reached the terminal")
	}
	quitAndCheck(t, tm)
}
