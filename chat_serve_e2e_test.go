package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
)

// TestE2EChatServe runs the built binary as latch --serve in a pty, with
// an mcp-go client calling through its gateway: the status line says
// where it serves and to how many clients; the client's call is asked in
// the chat's box naming the client; y gives the client the real result;
// Esc on the next parks it (the client gets the awaiting result), and
// /approve in the chat lets the client's poll collect the result.
func TestE2EChatServe(t *testing.T) {
	fake := newFake(t)
	port := mcptestutil.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := map[string]any{
		"permissions": map[string]any{"mode": "ask"},
		"mcpServers":  map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 40, Cols: 120, Host: fake.Host(),
		Args: []string{"--model", e2eModel, "--config", path, "--serve", addr}, Env: []string{"LATCH_SERVE_TOKEN=tok-e2e"}})
	serving := "serving http://" + addr + "/mcp"
	tm.waitScreen(t, 20*time.Second, "the server connected and the gateway serving", func(s string) bool {
		return strings.Contains(s, "fake connected") && strings.Contains(statusLine(s), serving+" · 0 clients")
	})

	c, err := mcpclient.NewStreamableHttpClient("http://"+addr+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-e2e"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: "e2e-agent", Version: "1"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		t.Fatal(err)
	}
	tm.waitScreen(t, 10*time.Second, "one client counted", func(s string) bool {
		return strings.Contains(statusLine(s), serving+" · 1 client")
	})
	call := func(name string, args map[string]any) <-chan string {
		out := make(chan string, 1)
		go func() {
			var req mcp.CallToolRequest
			req.Params.Name, req.Params.Arguments = name, args
			res, err := c.CallTool(ctx, req)
			switch {
			case err != nil:
				out <- "error: " + err.Error()
			case len(res.Content) == 0:
				out <- "no content"
			default:
				text, _ := mcp.AsTextContent(res.Content[0])
				out <- fmt.Sprintf("%v %s", res.IsError, text.Text)
			}
		}()
		return out
	}
	result := func(ch <-chan string) string {
		select {
		case s := <-ch:
			return s
		case <-time.After(20 * time.Second):
			t.Fatalf("no result; screen:\n%s", dumpScreen(tm.screen()))
		}
		return ""
	}
	boxReady := func(s string) bool {
		return strings.Contains(s, "from    e2e-agent (via latch serve)") && !strings.Contains(s, "keys ignored")
	}

	res := call("fake__add", map[string]any{"a": 2, "b": 3})
	tm.waitScreen(t, 10*time.Second, "the box naming the client", boxReady)
	tm.typeKeys("y")
	if got := result(res); got != "false 5" {
		t.Errorf("after y the client got %q, want the tool's result 5", got)
	}

	res = call("fake__add", map[string]any{"a": 20, "b": 22})
	tm.waitScreen(t, 10*time.Second, "the box of the second call", boxReady)
	tm.sendKey(keyEsc)
	var h handle
	if got := result(res); !strings.HasPrefix(got, "false ") || json.Unmarshal([]byte(strings.TrimPrefix(got, "false ")), &h) != nil ||
		h.Status != "awaiting_approval" {
		t.Fatalf("after Esc the client got %q, want the awaiting result", got)
	}
	tm.waitScreen(t, 10*time.Second, "the parked call said in the chat", func(s string) bool {
		return strings.Contains(unwrapped(s), "e2e-agent (via latch serve): its call of fake__add waits as approval a1")
	})
	poll := call("latch_await_decision", map[string]any{"invocation_id": h.InvocationID})
	sendPrompt(t, tm, "/approve a1")
	if got := result(poll); got != "false 42" {
		t.Errorf("the poll after /approve got %q, want the tool's result 42", got)
	}
	quitAndCheck(t, tm)
}
