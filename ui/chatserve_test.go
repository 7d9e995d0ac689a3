package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// The chat with a gateway beside it (latch --serve): a real session with
// the notes server, its gateway served over streamable HTTP, and an
// mcp-go client calling through it, while the UI model shows what the
// person sees.

// serveToken is the gateway's bearer token in these tests.
const serveToken = "test-token-chatserve"

// serveHarness is a chat over the notes server in mode, with a gateway
// serving its tools, whose calls are asked in the chat for up to poll.
// The session also knows the credential of a server that is off
// (hostileSecret), to see it redacted.
func serveHarness(t *testing.T, mode permissions.Mode, poll time.Duration) (*harness, *toolServer, string) {
	t.Helper()
	h, w := toolHarnessWith(t, session.Options{ID: "20261201-120000-serve1",
		Policy: permissions.Policy{Mode: mode, ServerAllow: map[string][]string{"notes": {"read_note"}}},
		Servers: []session.ServerConfig{{Name: "vault", Transport: "http", URL: "https://vault.example/mcp",
			Token: hostileSecret, Disabled: true}}})
	g := gateway.New(gateway.Options{Session: h.sess, AwaitPoll: poll})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = g.ServeHTTP(ctx, gateway.HTTPOptions{Addr: "127.0.0.1:0", Token: serveToken,
			Ready: func(addr string) { ready <- addr }})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case addr := <-ready:
		return h, w, "http://" + addr + gateway.Path
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatal("the gateway did not listen")
	}
	return nil, nil, ""
}

// gwClient is an MCP client of the gateway, named name in its clientInfo.
func gwClient(t *testing.T, url, name string) *mcpclient.Client {
	t.Helper()
	c, err := mcpclient.NewStreamableHttpClient(url,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + serveToken}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(0))
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1.0"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		t.Fatal(err)
	}
	return c
}

// callResult is what a client's call came back with.
type callResult struct {
	res *mcp.CallToolResult
	err error
}

// text is the result's text, or the error.
func (r callResult) text() string {
	if r.err != nil {
		return "error: " + r.err.Error()
	}
	var b strings.Builder
	for _, c := range r.res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// callAsync calls a tool through the gateway; the result comes on the
// channel.
func callAsync(c *mcpclient.Client, name string, args map[string]any) <-chan callResult {
	out := make(chan callResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		out <- callResult{res, err}
	}()
	return out
}

// waitResult feeds events to the model until the call's result is in.
func (h *harness) waitResult(ch <-chan callResult) callResult {
	h.t.Helper()
	bound := mcptestutil.HangBound(0) // a hang's bound, not a measure
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		select {
		case got := <-ch:
			return got
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if evs, ok := h.sub.Next(ctx); ok {
			h.feed(evs...)
		}
		cancel()
	}
	h.t.Fatalf("no result within %v\n%s", bound, h.report())
	return callResult{}
}

// awaiting is the invocation id of an awaiting result, "" when it is not one.
func awaiting(r callResult) string {
	if r.err != nil || r.res.IsError {
		return ""
	}
	var v struct {
		Status string `json:"status"`
		ID     string `json:"invocation_id"`
	}
	if json.Unmarshal([]byte(r.text()), &v) != nil || v.Status != "awaiting_approval" {
		return ""
	}
	return v.ID
}

// A client's call in ask mode is asked in the chat's box, which names
// the client; y runs it, and the client gets the real result on that
// same call.
func TestServeClientCallAskedInChatYes(t *testing.T) {
	h, w, url := serveHarness(t, permissions.Ask, time.Minute)
	c := gwClient(t, url, "claude-code")
	res := callAsync(c, "notes__write_note", map[string]any{"text": "from claude"})
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	v := h.m.View()
	for _, want := range []string{"Allow this tool call?", "from    claude-code (via latch serve)", "notes__write_note",
		`"text": "from claude"`, "esc decide", "notes__write_note · destructive · from claude-code (via latch serve)"} {
		if !strings.Contains(v, want) {
			t.Errorf("the box lacks %q:\n%s", want, v)
		}
	}
	if w.count() != 0 {
		t.Fatal("the call ran before the person answered")
	}
	h.typeText("y")
	got := h.waitResult(res)
	if got.err != nil || got.res.IsError || got.text() != "written" {
		t.Fatalf("the client got %q (isError %v), want the tool's result", got.text(), got.res != nil && got.res.IsError)
	}
	if w.count() != 1 {
		t.Errorf("the call ran %d times", w.count())
	}
	if h.m.modal != nil {
		t.Errorf("the box stayed open:\n%s", h.m.View())
	}
}

// n refuses a client's call: the client gets an error result saying a
// person declined it, and nothing runs.
func TestServeClientCallAskedInChatNo(t *testing.T) {
	h, w, url := serveHarness(t, permissions.Ask, time.Minute)
	c := gwClient(t, url, "goose")
	res := callAsync(c, "notes__write_note", map[string]any{"text": "no"})
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	h.typeText("n")
	got := h.waitResult(res)
	if got.err != nil || !got.res.IsError || !strings.Contains(got.text(), "declined") {
		t.Fatalf("the client got %q, want an error result saying it was declined", got.text())
	}
	if w.count() != 0 {
		t.Errorf("a declined call ran")
	}
}

// Esc parks a client's call: the client gets the awaiting result at
// once, the chat says how to decide it, /approvals lists it naming the
// client, and /approve runs it once: the client's poll gets the result.
func TestServeClientCallEscParksThenApprove(t *testing.T) {
	h, w, url := serveHarness(t, permissions.Ask, time.Minute)
	c := gwClient(t, url, "crush")
	res := callAsync(c, "notes__write_note", map[string]any{"text": "later"})
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	h.key(tea.KeyEsc)
	got := h.waitResult(res)
	id := awaiting(got)
	if id == "" {
		t.Fatalf("the client got %q, want the awaiting result", got.text())
	}
	h.until(func() bool { return h.m.pending == 1 })
	if h.m.modal != nil {
		t.Fatalf("Esc left a box open:\n%s", h.m.View())
	}
	if h.sess.Running() {
		t.Error("Esc on a client's call cancelled nothing of the chat, yet a turn runs")
	}
	h.command("/approvals")
	if v := allText(h.m); !strings.Contains(v, "a1  notes__write_note") || !strings.Contains(v, "from crush") ||
		!strings.Contains(v, "crush (via latch serve): its call of notes__write_note waits as approval a1") {
		t.Fatalf("the chat does not show the parked call naming its client:\n%s", v)
	}
	if w.count() != 0 {
		t.Fatal("a parked call ran")
	}
	poll := callAsync(c, gateway.AwaitTool, map[string]any{"invocation_id": id})
	h.command("/approve a1")
	if got := h.waitResult(poll); got.err != nil || got.res.IsError || got.text() != "written" {
		t.Fatalf("the poll got %q, want the tool's result", got.text())
	}
	again := h.waitResult(callAsync(c, gateway.AwaitTool, map[string]any{"invocation_id": id}))
	if again.text() != "written" || w.count() != 1 {
		t.Errorf("a second poll got %q; the call ran %d times (want once)", again.text(), w.count())
	}
}

// No answer within the poll bound parks the call: the client is not held
// longer, and the box goes.
func TestServeClientCallUnansweredParks(t *testing.T) {
	h, w, url := serveHarness(t, permissions.Ask, 200*time.Millisecond)
	c := gwClient(t, url, "ci-job")
	res := callAsync(c, "notes__write_note", map[string]any{"text": "nobody"})
	got := h.waitResult(res)
	if awaiting(got) == "" {
		t.Fatalf("the client got %q, want the awaiting result", got.text())
	}
	h.until(func() bool { return h.m.pending == 1 })
	if h.m.modal != nil {
		t.Errorf("the box of a call that parked is still open:\n%s", h.m.View())
	}
	if w.count() != 0 || len(h.sess.Approvals()) != 1 {
		t.Errorf("ran %d times, %d approvals waiting (want 0, 1)", w.count(), len(h.sess.Approvals()))
	}
}

// A client's calls that come while the person types do not take their
// keys: the box waits, the keys go to the input.
func TestServeClientCallWhileTypingTakesNoKeys(t *testing.T) {
	h, w, url := serveHarness(t, permissions.Ask, time.Minute)
	c := gwClient(t, url, "claude-code")
	h.typeText("my next questio")
	res := callAsync(c, "notes__write_note", map[string]any{"text": "sneaky"})
	h.until(func() bool { return h.m.modal != nil })
	for _, k := range []string{"n", " ", "y", "e", "s", "A"} {
		h.typeText(k)
	}
	if got := h.m.input.value(); got != "my next question yesA" {
		t.Errorf("the input holds %q: the box took keys typed for the chat", got)
	}
	if w.count() != 0 || h.m.modal == nil {
		t.Fatalf("the call was decided by keys typed for the chat (ran %d, box open %v)", w.count(), h.m.modal != nil)
	}
	pastGuard(h.m)
	h.typeText("y")
	if got := h.waitResult(res); got.text() != "written" {
		t.Errorf("the client got %q", got.text())
	}
}

// Many calls at once queue behind one box, which says how many wait;
// each answer brings the next.
func TestServeClientCallsQueueBehindOneBox(t *testing.T) {
	h, w, url := serveHarness(t, permissions.Ask, time.Minute)
	c := gwClient(t, url, "flood")
	var results []<-chan callResult
	for _, text := range []string{"one", "two", "three"} {
		results = append(results, callAsync(c, "notes__write_note", map[string]any{"text": text}))
	}
	shows := func(s string) func() bool { return func() bool { return strings.Contains(h.m.View(), s) } }
	h.until(shows("2 more calls waiting after this one"))
	pastGuard(h.m)
	if v := h.m.View(); strings.Count(v, "Allow this tool call?") != 1 {
		t.Fatalf("want one box that counts the two behind it:\n%s", v)
	}
	h.typeText("y")
	h.until(shows("1 more call waiting after this one"))
	pastGuard(h.m)
	h.typeText("n")
	h.until(func() bool {
		v := h.m.View()
		return strings.Contains(v, "Allow this tool call?") && !strings.Contains(v, "waiting after this one")
	})
	pastGuard(h.m)
	h.key(tea.KeyEsc)
	var texts []string
	for _, r := range results {
		texts = append(texts, h.waitResult(r).text())
	}
	ran, declined, parked := 0, 0, 0
	for _, s := range texts {
		switch {
		case s == "written":
			ran++
		case strings.Contains(s, "declined"):
			declined++
		case strings.Contains(s, "awaiting_approval"):
			parked++
		}
	}
	if ran != 1 || declined != 1 || parked != 1 || w.count() != 1 {
		t.Errorf("results %q (ran %d times): want one run, one declined, one parked", texts, w.count())
	}
}

// Approve mode: a client's call parks at once; the chat says so, naming
// the client, without a box in front of it.
func TestServeClientCallApproveModeParks(t *testing.T) {
	h, w, url := serveHarness(t, permissions.Approve, time.Minute)
	c := gwClient(t, url, "claude-code")
	got := h.waitResult(callAsync(c, "notes__write_note", map[string]any{"text": "parked"}))
	if awaiting(got) == "" {
		t.Fatalf("the client got %q, want the awaiting result", got.text())
	}
	h.until(func() bool { return h.m.pending == 1 })
	if v := h.m.View(); h.m.modal != nil || !strings.Contains(v, "claude-code (via latch serve): its call of notes__write_note waits as approval a1") ||
		!strings.Contains(v, "⏸ 1 pending") {
		t.Errorf("want the parked call said in the chat, no box:\n%s", v)
	}
	if w.count() != 0 {
		t.Error("a parked call ran")
	}
}

// What a client sends to the screen (its name, the arguments) is made
// inert and redacted as the model's calls are: in the box, on the card,
// in the notice of a parked call and in /approvals. A name that is not a
// plain name is shown between quotes, never as a named client's label.
func TestServeClientNameAndArgumentsInert(t *testing.T) {
	h, _, url := serveHarness(t, permissions.Ask, time.Minute)
	plant := mcptestutil.Plant(hostileSecret)
	c := gwClient(t, url, "claude"+plant)
	res := callAsync(c, "notes__write_note", map[string]any{"text": hostileSecret + " " + plant})
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	frames := []string{h.m.View()}
	if !strings.Contains(frames[0], `from    "claude`) || !strings.Contains(frames[0], "[redacted]") {
		t.Errorf("the box does not name the client, or shows no redaction:\n%s", frames[0])
	}
	h.key(tea.KeyEsc)
	if awaiting(h.waitResult(res)) == "" {
		t.Fatal("Esc did not park the call")
	}
	h.until(func() bool { return h.m.pending == 1 })
	h.command("/approvals")
	frames = append(frames, h.m.View(), allText(h.m))
	if !strings.Contains(frames[2], "a1  notes__write_note") {
		t.Fatalf("/approvals does not list the call:\n%s", frames[2])
	}
	for i, f := range frames {
		if strings.Contains(f, hostileSecret) {
			t.Errorf("frame %d: the credential reached the screen:\n%s", i, f)
		}
		if bad := mcptestutil.FirstForbidden(f); bad != "" {
			t.Errorf("frame %d: %q reached the screen:\n%s", i, bad, f)
		}
	}
}

// A client's call that parks rings the terminal once (Options.Notify),
// naming its tool.
func TestServeClientCallParkedNotifies(t *testing.T) {
	h, _, url := serveHarness(t, permissions.Approve, time.Minute)
	var rung []string
	h.m.notify = func(tool string) { rung = append(rung, tool) }
	c := gwClient(t, url, "claude-code")
	for _, text := range []string{"one", "two"} {
		if got := h.waitResult(callAsync(c, "notes__write_note", map[string]any{"text": text})); awaiting(got) == "" {
			t.Fatalf("the client got %q, want the awaiting result", got.text())
		}
	}
	h.until(func() bool { return h.m.pending == 2 })
	if len(rung) != 2 || rung[0] != "notes__write_note" || rung[1] != "notes__write_note" {
		t.Errorf("rung %q, want once per parked call, naming the tool", rung)
	}
}
