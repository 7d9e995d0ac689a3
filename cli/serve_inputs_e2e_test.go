package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
)

// latch serve with a VS Code mcp.json whose server "keyed" takes its key
// from ${input:api-key}: latch serve has no one to ask, so the server is
// not started (never with the placeholder as its key), stderr says so
// naming it, and the gateway's instructions name it for the client; the
// other server is served.
func TestServeNamesServerLeftOutForAnInput(t *testing.T) {
	t.Parallel()
	fake := mcptestutil.BuildFakeMCP(t)
	got := filepath.Join(t.TempDir(), "key-the-server-got")
	r := newPromptRig(t, map[string]any{
		"inputs": []map[string]any{{"type": "promptString", "id": "api-key", "description": "Search API key", "password": true}},
		"servers": map[string]any{
			"keyed": map[string]any{"type": "stdio", "command": "/bin/sh",
				"args": []string{"-c", `printf %s "$API_KEY" > "$OUT"; exec "$FAKE"`},
				"env":  map[string]string{"API_KEY": "${input:api-key}", "OUT": got, "FAKE": fake}},
			"plain": map[string]any{"type": "stdio", "command": fake},
		},
	}, false)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "list": true})
	if res.ConnectError != "" {
		t.Fatalf("connect: %s", res.ConnectError)
	}
	if b, err := os.ReadFile(got); err == nil {
		t.Errorf("the server was started without its input, with API_KEY=%q", b)
	}
	want := `server "keyed": needs ${input:api-key}, a value VS Code asks for; latch serve has no one to ask for it, so this server is not loaded`
	if !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr does not name the server left out:\n%s\nwant a line with %q", res.Stderr, want)
	}
	if !strings.Contains(res.Instructions, "Server keyed is not loaded (needs ${input:api-key}") {
		t.Errorf("the instructions do not name the server left out: %q", res.Instructions)
	}
	var plain bool
	for _, tool := range res.Tools {
		plain = plain || tool["name"] == "plain__echo"
	}
	if !plain {
		t.Errorf("the other server's tools are not served: %v", res.Tools)
	}
}
