package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
)

// chatServeRig is the built binary run as latch --serve in a pty, and an
// mcp-go client of its gateway.
type chatServeRig struct {
	t       *testing.T
	tm      *ptyTerm
	addr    string
	serving string // how the status line says where it serves
	c       *mcpclient.Client
	ctx     context.Context
}

// chatServeConfig writes a config with the fake stdio server in mode. A
// call is asked in the chat for two minutes before it parks: a slow,
// loaded machine must not park it while the test answers.
func chatServeConfig(t *testing.T, mode string) string {
	t.Helper()
	cfg := map[string]any{
		"serve":       map[string]any{"await_poll": "2m"},
		"permissions": map[string]any{"mode": mode},
		"mcpServers":  map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startChatServe runs latch --serve addr with the config (and args, and
// the state in stateDir), waits for its server and gateway, and connects
// a client named e2e-agent.
func startChatServe(t *testing.T, host, config, addr, stateDir string, args ...string) *chatServeRig {
	t.Helper()
	return startChatServeWith(t, host, config, addr, "tok-e2e", []string{"XDG_STATE_HOME=" + stateDir}, args...)
}

// startChatServeWith is startChatServe with the environment env, the
// shared token tok-e2e, and the client connecting with token.
func startChatServeWith(t *testing.T, host, config, addr, token string, env []string, args ...string) *chatServeRig {
	t.Helper()
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	tm := startLatch(t, bin, ptyOptions{Rows: 40, Cols: 120, Host: host,
		Args: append([]string{"--model", e2eModel, "--config", config, "--serve", addr}, args...),
		Env:  append([]string{"LATCH_SERVE_TOKEN=tok-e2e"}, env...)})
	r := &chatServeRig{t: t, tm: tm, addr: addr, serving: "serving http://" + addr + "/mcp"}
	tm.waitScreen(t, 20*time.Second, "the server connected and the gateway serving", func(s string) bool {
		return strings.Contains(s, "fake connected") && strings.Contains(statusLine(s), r.serving+" · 0 clients")
	})
	c, err := mcpclient.NewStreamableHttpClient("http://"+addr+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: "e2e-agent", Version: "1"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		t.Fatal(err)
	}
	r.c, r.ctx = c, ctx
	return r
}

// call calls a tool through the gateway; its result comes on the channel
// as "ISERROR TEXT".
func (r *chatServeRig) call(name string, args map[string]any) <-chan string {
	out := make(chan string, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = name, args
		res, err := r.c.CallTool(r.ctx, req)
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

// result waits for a call's result.
func (r *chatServeRig) result(ch <-chan string) string {
	r.t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(mcptestutil.HangBound(20 * time.Second)):
		r.t.Fatalf("no result; screen:\n%s", dumpScreen(r.tm.screen()))
	}
	return ""
}

// awaiting is the invocation id of an awaiting result ("false {…}").
func (r *chatServeRig) awaiting(got string) string {
	r.t.Helper()
	var h handle
	if !strings.HasPrefix(got, "false ") || json.Unmarshal([]byte(strings.TrimPrefix(got, "false ")), &h) != nil ||
		h.Status != "awaiting_approval" {
		r.t.Fatalf("the client got %q, want the awaiting result", got)
	}
	return h.InvocationID
}

// takeBox waits for the box naming the client and takes it (takeBoxWith).
func (r *chatServeRig) takeBox(what string) {
	r.t.Helper()
	takeBoxWith(r.t, r.tm, "from    e2e-agent (via latch serve)", what)
}

// takeBoxWith waits for a box showing box, takes it with Tab after a
// pause if it waits (a key the terminal sent as latch started counts as
// typing), and waits until it answers keys.
func takeBoxWith(t *testing.T, tm *ptyTerm, box, what string) {
	t.Helper()
	scr := tm.waitSettled(t, 10*time.Second, what, func(s string) bool { return strings.Contains(s, box) })
	if strings.Contains(unwrapped(scr), "tab to answer") {
		time.Sleep(1200 * time.Millisecond) // a pause in typing (ui's typingPause), not a measure
		tm.sendKey("\t")
	}
	tm.waitSettled(t, 10*time.Second, what+" answering keys", func(s string) bool {
		u := unwrapped(s)
		return strings.Contains(s, box) && !strings.Contains(u, "keys ignored") && !strings.Contains(u, "tab to answer")
	})
}

// TestE2EChatServe runs the built binary as latch --serve in a pty, with
// an mcp-go client calling through its gateway: the status line says
// where it serves and to how many clients; the client's call is asked in
// the chat's box naming the client; y gives the client the real result;
// Esc on the next parks it (the client gets the awaiting result), and
// /approve in the chat lets the client's poll collect the result.
func TestE2EChatServe(t *testing.T) {
	fake := newFake(t)
	addr := fmt.Sprintf("127.0.0.1:%d", mcptestutil.FreePort(t))
	r := startChatServe(t, fake.Host(), chatServeConfig(t, "ask"), addr, t.TempDir())
	tm := r.tm
	tm.waitScreen(t, 10*time.Second, "one client counted", func(s string) bool {
		return strings.Contains(statusLine(s), r.serving+" · 1 client")
	})

	res := r.call("fake__add", map[string]any{"a": 2, "b": 3})
	r.takeBox("the box naming the client")
	tm.typeKeys("y")
	// Once, under the whole suite's load with the race detector, this y
	// was not taken (the box stayed, answering keys by the screen); not
	// reproduced since. A person would press it again: so does the test,
	// saying so, so that a key lost every time still fails.
	select {
	case got := <-res:
		res = func() <-chan string { c := make(chan string, 1); c <- got; return c }()
	case <-time.After(5 * time.Second):
		if strings.Contains(tm.screen(), "from    e2e-agent (via latch serve)") {
			t.Logf("the first y was not taken within 5 s; pressing it again; screen:\n%s", dumpScreen(tm.screen()))
			tm.typeKeys("y")
		}
	}
	if got := r.result(res); got != "false 5" {
		t.Errorf("after y the client got %q, want the tool's result 5; screen:\n%s", got, dumpScreen(tm.screen()))
	}

	res = r.call("fake__add", map[string]any{"a": 20, "b": 22})
	// The first call's box may still be on the screen: wait for the
	// second's (its arguments in the box) before taking it.
	tm.waitScreen(t, 10*time.Second, "the second call's box", func(s string) bool {
		return strings.Count(s, `"a": 20`) >= 2 // its card and its box
	})
	r.takeBox("the box of the second call")
	tm.sendKey(keyEsc)
	id := r.awaiting(r.result(res))
	tm.waitScreen(t, 10*time.Second, "the parked call said in the chat", func(s string) bool {
		return strings.Contains(unwrapped(s), "e2e-agent (via latch serve): its call of fake__add waits as approval a1")
	})
	poll := r.call("latch_await_decision", map[string]any{"invocation_id": id})
	sendPrompt(t, tm, "/approve a1")
	if got := r.result(poll); got != "false 42" {
		t.Errorf("the poll after /approve got %q, want the tool's result 42; screen:\n%s", got, dumpScreen(tm.screen()))
	}
	quitAndCheck(t, tm)
}

// A client's call parked in the chat outlives the chat: latch --resume ID
// --serve takes it up under the same invocation id, /approve runs it, and
// the client's poll gets the result.
func TestE2EChatServeResumed(t *testing.T) {
	fake := newFake(t)
	addr := fmt.Sprintf("127.0.0.1:%d", mcptestutil.FreePort(t))
	config, state := chatServeConfig(t, "approve"), t.TempDir()
	r := startChatServe(t, fake.Host(), config, addr, state)
	id := r.awaiting(r.result(r.call("fake__add", map[string]any{"a": 40, "b": 2})))
	r.tm.waitScreen(t, 10*time.Second, "the parked call said in the chat", func(s string) bool {
		return strings.Contains(unwrapped(s), "its call of fake__add waits as approval a1")
	})
	quitAndCheck(t, r.tm)
	m := regexp.MustCompile(`latch --resume (\S+) · 1 call waits for approval`).FindStringSubmatch(r.tm.screen())
	if m == nil {
		t.Fatalf("no exit line naming the session and its waiting call:\n%s", dumpScreen(r.tm.screen()))
	}

	again := startChatServe(t, fake.Host(), config, addr, state, "--resume", m[1])
	poll := again.call("latch_await_decision", map[string]any{"invocation_id": id})
	sendPrompt(t, again.tm, "/approve a1")
	if got := again.result(poll); got != "false 42" {
		t.Errorf("the poll after /approve in the resumed chat got %q, want the tool's result 42", got)
	}
	quitAndCheck(t, again.tm)
}
