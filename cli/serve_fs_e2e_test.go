package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
)

// server-filesystem behind latch serve, with the official SDK client: an
// allow-listed read returns the server's result over stdio; a write the
// gate would ask about parks, a person approves it at a terminal, the
// poll returns the server's result, and the file was written once.
func TestServeFilesystemThroughTheGate(t *testing.T) {
	t.Parallel()
	const token = "fs-token-for-the-test"
	bin := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	r := newPromptRig(t, map[string]any{
		"permissions": map[string]any{"mode": "ask"},
		"serve":       map[string]any{"await_poll": "2s"},
		"mcpServers": map[string]any{"fs": map[string]any{"command": bin, "args": []string{"."},
			"allow": []string{"read_text_file", "list_directory"}}},
	}, false)
	dir, err := filepath.EvalSymlinks(r.cwd) // the server compares real paths
	if err != nil {
		t.Fatal(err)
	}
	const content = "a note for the gateway\n"
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}

	read := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(), "calls": []any{
		map[string]any{"name": "fs__read_text_file", "arguments": map[string]any{"path": filepath.Join(dir, "note.txt")}}}})
	if text, isErr := callText(t, read, 0); isErr || !strings.Contains(text, content) {
		t.Errorf("read_text_file through latch serve: %q (error %v), want the file's text", text, isErr)
	}

	srv := startServeHTTP(t, r, token)
	plan := map[string]any{"url": srv.url, "token": token}
	target := filepath.Join(dir, "written.txt")
	h := callHandle(t, sdkClient(t, r, map[string]any{"http": plan, "calls": []any{
		map[string]any{"name": "fs__write_file", "arguments": map[string]any{"path": target, "content": "written once"}}}}), 0)
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("the parked write happened before anyone decided (stat: %v)", err)
	}
	if ok := decideAsPerson(t, r, "approve", h.InvocationID); ok.code != 0 {
		t.Fatalf("latch approve (exit %d): %s", ok.code, ok.screen)
	}
	text, isErr := pollOnce(t, r, plan, h.InvocationID)
	for strings.Contains(text, "awaiting_approval") {
		text, isErr = pollOnce(t, r, plan, h.InvocationID)
	}
	if isErr || !strings.Contains(text, "written.txt") {
		t.Errorf("the poll once approved: %q (error %v), want server-filesystem's result", text, isErr)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "written once" {
		t.Errorf("the file after the approved write: %q, %v", b, err)
	}
}
