package cli

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// rawMCP posts one JSON-RPC message to latch serve with the token (and a
// session id when not empty), and returns the status and the session id
// answered.
func rawMCP(t *testing.T, url, token, session, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// A 2025-era session latch serve ended (the client's DELETE) or never
// issued is not served: 404, as the spec asks, so that a client starts a
// new one rather than being served under a session that is gone.
func TestServeHTTPSessionEndsWithDelete(t *testing.T) {
	t.Parallel()
	const token = "session-token-for-the-test"
	r := newPromptRig(t, nil, true)
	url := startServeHTTP(t, r, token).url
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	code, session := rawMCP(t, url, token, "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if code != http.StatusOK || session == "" {
		t.Fatalf("initialize: status %d, session %q", code, session)
	}
	if code, _ := rawMCP(t, url, token, session, list); code != http.StatusOK {
		t.Fatalf("tools/list in the session: status %d", code)
	}
	req, _ := http.NewRequest("DELETE", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("DELETE: status %d", resp.StatusCode)
	}
	if code, _ := rawMCP(t, url, token, session, list); code != http.StatusNotFound {
		t.Errorf("tools/list in the ended session: status %d, want 404", code)
	}
	forged := "mcp-session-" + strings.Repeat("0", 8) + "-0000-4000-8000-" + strings.Repeat("0", 12)
	if code, _ := rawMCP(t, url, token, forged, list); code != http.StatusNotFound {
		t.Errorf("tools/list in a session never issued: status %d, want 404", code)
	}
}
