package cli

// End-to-end tests of numbers past 2^53 in a call's arguments: from an MCP
// client through latch serve, and from the model through -p, they reach
// the gate, the log, the approval screens and the upstream server as they
// were written. The server's side is the raw JSON latch wrote to it (the
// rig's copy of server-memory's stdin): a server of mcp-go or of the
// TypeScript SDK would round them itself as it decodes them.

import (
	"bufio"
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
	"latch/session/ollamatest"
)

// The numbers: 2^53+1 and a 19-digit integer, which float64 rounds to
// 9007199254740992 and 1234567890123456768.
const (
	bigA    = "9007199254740993"
	bigB    = "1234567890123456789"
	bigArgs = `{"a":` + bigA + `,"b":` + bigB + `,"entities":[]}`
)

// memCallLines are the tools/call requests latch wrote to server-memory
// for tool, as raw JSON lines.
func (r *promptRig) memCallLines(tool string) []string {
	r.t.Helper()
	f, err := os.Open(r.memIn)
	if err != nil {
		r.t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := sc.Text(); strings.Contains(l, `"tools/call"`) && strings.Contains(l, `"name":"`+tool+`"`) {
			out = append(out, l)
		}
	}
	return out
}

// checkSentExact fails unless exactly one call of tool reached
// server-memory, with the big numbers as written.
func checkSentExact(t *testing.T, r *promptRig, tool string) {
	t.Helper()
	lines := r.memCallLines(tool)
	if len(lines) != 1 || !strings.Contains(lines[0], `"arguments":`+bigArgs) {
		t.Errorf("server-memory was sent %d %s calls, want one with arguments %s exactly:\n%s",
			len(lines), tool, bigArgs, strings.Join(lines, "\n"))
	}
}

// checkLoggedExact fails unless the session's log holds the numbers as
// written, and never rounded.
func checkLoggedExact(t *testing.T, r *promptRig, id string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.state, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), bigArgs) || strings.Contains(string(b), "9007199254740992") {
		t.Errorf("the session log does not hold %s as written:\n%s", bigArgs, b)
	}
}

// A client's call with integers past 2^53, parked in approve mode: latch
// approvals lists them exact; latch serve is killed and started again;
// latch approve shows them exact to the person who approves; the call
// runs, and server-memory is sent exactly 9007199254740993 and
// 1234567890123456789 (before, every one of these showed and sent the
// float64 rounding: 9007199254740992 and 1234567890123456768).
func TestServeBigNumbersReachTheServerExact(t *testing.T) {
	const token = "numbers-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	srv := startServeHTTP(t, r, token)
	c := rawServeClient(t, srv.url, token)
	got := callRaw(t, c, "mem__create_entities", bigArgs)
	var h handle
	if err := json.Unmarshal([]byte(got), &h); err != nil || h.Status != "awaiting_approval" {
		t.Fatalf("the call got %q, want the awaiting result", got)
	}
	if list := r.run("", "approvals"); !strings.Contains(list.stdout, `{"a": `+bigA+`, "b": `+bigB) {
		t.Errorf("latch approvals does not show the numbers as sent:\n%s", list.stdout)
	}
	checkLoggedExact(t, r, r.onlySession())

	srv.kill(t)
	srv = startServeHTTP(t, r, token)
	ok := decideAsPerson(t, r, "approve", h.InvocationID)
	if ok.code != 0 || !strings.Contains(ok.screen, `"a": `+bigA) || !strings.Contains(ok.screen, `"b": `+bigB) {
		t.Fatalf("latch approve (exit %d) does not show the arguments as sent (%s): %s", ok.code, bigArgs, ok.screen)
	}
	c = rawServeClient(t, srv.url, token)
	for deadline := time.Now().Add(time.Minute); ; {
		got = callRaw(t, c, "latch_await_decision", `{"invocation_id":"`+h.InvocationID+`"}`)
		if !strings.Contains(got, "awaiting_approval") || time.Now().After(deadline) {
			break
		}
	}
	if strings.Contains(got, "awaiting_approval") {
		t.Fatalf("the approved call still waits: %s", got)
	}
	checkSentExact(t, r, "create_entities")
}

// rawServeClient is an mcp-go client of latch serve at url, initialized.
func rawServeClient(t *testing.T, url, token string) *mcpclient.Client {
	t.Helper()
	return rawServeClientAs(t, url, token, "numbers-e2e")
}

// rawServeClientAs is rawServeClient calling itself name (clientInfo).
func rawServeClientAs(t *testing.T, url, token, name string) *mcpclient.Client {
	t.Helper()
	c, err := mcpclient.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var ir mcp.InitializeRequest
	ir.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		t.Fatal(err)
	}
	return c
}

// callRaw calls a tool with arguments given as raw JSON (an mcp-go
// client sends a json.RawMessage as it is) and returns its result's text.
func callRaw(t *testing.T, c *mcpclient.Client, name, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = name, json.RawMessage(args)
	res, err := c.CallTool(ctx, req)
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("call %s: %v %+v", name, err, res)
	}
	text, _ := mcp.AsTextContent(res.Content[0])
	return text.Text
}

// The model's call (from Ollama's stream) with integers past 2^53, parked
// by -p in approve mode: the log, latch approvals and --json show them
// exact, and --resume --approve runs the call with them exact on the
// wire to server-memory.
func TestPromptBigNumbersReachTheServerExact(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"}}, true)
	r.fake.Script(memCall("call_big", "create_entities", map[string]any{
		"a": json.Number(bigA), "b": json.Number(bigB), "entities": []any{}}))
	res := r.run("", "--model", e2eModel, "-p", "store the numbers", "--json")
	if res.code != exitParked {
		t.Fatalf("exit %d, want %d (parked)", res.code, exitParked)
	}
	if !strings.Contains(res.stdout, `"arguments":`+bigArgs) {
		t.Errorf("--json does not show the arguments as the model wrote them:\n%s", res.stdout)
	}
	id := r.onlySession()
	checkLoggedExact(t, r, id)
	if list := r.run("", "approvals"); !strings.Contains(list.stdout, `{"a": `+bigA+`, "b": `+bigB) {
		t.Errorf("latch approvals does not show the numbers as the model wrote them:\n%s", list.stdout)
	}
	r.fake.Script(ollamatest.TextTurn("Stored."))
	if res := r.run("", "--resume", id, "--approve", "a1", "-p", ""); res.code != exitOK {
		t.Fatalf("--resume --approve: exit %d", res.code)
	}
	checkSentExact(t, r, "create_entities")
}

// latch --serve: a client's call with 2^53+1 is asked in the chat's box
// with the number as the client sent it, on its card and in its box (it
// showed 9007199254740992); n refuses it.
func TestE2EChatServeBoxShowsNumbersExact(t *testing.T) {
	fake := newFake(t)
	addr := fmt.Sprintf("127.0.0.1:%d", mcptestutil.FreePort(t))
	r := startChatServe(t, fake.Host(), chatServeConfig(t, "ask"), addr, t.TempDir())
	res := r.call("fake__add", map[string]any{"a": json.Number(bigA), "b": json.Number("1.0")})
	r.tm.waitScreen(t, 20*time.Second, "the card and the box with the numbers as sent", func(s string) bool {
		return strings.Count(s, `"a": `+bigA) >= 2 && strings.Count(s, `"b": 1.0`) >= 2
	})
	r.takeBox("the box of the call")
	r.tm.typeKeys("n")
	if got := r.result(res); !strings.HasPrefix(got, "true ") {
		t.Errorf("after n the client got %q, want a refusal", got)
	}
	quitAndCheck(t, r.tm)
}
