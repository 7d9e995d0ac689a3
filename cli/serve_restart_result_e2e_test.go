package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// call makes one tool call through the gateway and returns its result.
func (g *stdioGateway) call(t *testing.T, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := g.client.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// linesUntil collects the gateway's stderr lines up to the first holding
// want, which it includes.
func (g *stdioGateway) linesUntil(t *testing.T, want string) []string {
	t.Helper()
	var out []string
	for {
		l := g.waitLine(t, "")
		out = append(out, l)
		if strings.Contains(l, want) {
			return out
		}
	}
}

// wire is a result as a client reads it: its content parts and
// structured content, as JSON.
func wire(t *testing.T, res *mcpgo.CallToolResult) (content, structured string) {
	t.Helper()
	c, err := json.Marshal(res.Content)
	if err != nil {
		t.Fatal(err)
	}
	s, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return string(c), string(s)
}

// TestServeRestartGivesBackTheSameResult: a call parked, approved and run
// is collected once; after the gateway restarts, collecting it again
// gives the same result, structured content and content parts alike. The
// restarted gateway counts only the calls that still wait, with the
// plural right ("1 parked call waits"), and says nothing when none does.
func TestServeRestartGivesBackTheSameResult(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "1s"}}, true)
	g := startServeStdio(t, r)
	alice := parkedID(g.call(t, "mem__create_entities", createAlice["arguments"].(map[string]any)))
	bob := parkedID(g.call(t, "mem__create_entities", createEntity("bob")["arguments"].(map[string]any)))
	if alice == "" || bob == "" {
		t.Fatalf("the calls did not park: %q %q", alice, bob)
	}
	if ok := decideAsPerson(t, r, "approve", alice); ok.code != 0 {
		t.Fatalf("approve: %s", ok.screen)
	}
	await := map[string]any{"invocation_id": alice}
	first := g.call(t, "latch_await_decision", await)
	for parkedID(first) != "" {
		first = g.call(t, "latch_await_decision", await)
	}
	content, structured := wire(t, first)
	if first.IsError || first.StructuredContent == nil || !strings.Contains(content, `\"alice\"`) {
		t.Fatalf("alice's result before the restart: %s %s (error %v)", content, structured, first.IsError)
	}
	g.stop(t)

	g = startServeStdio(t, r)
	again := g.call(t, "latch_await_decision", await)
	if c, s := wire(t, again); c != content || s != structured || again.IsError != first.IsError {
		t.Errorf("alice's result after the restart:\n content %s\n structured %s\nwant the first time's:\n content %s\n structured %s",
			c, s, content, structured)
	}
	g.call(t, "mem__read_graph", map[string]any{})
	said := g.linesUntil(t, "mem__read_graph")
	if !strings.Contains(strings.Join(said, "\n"), "resumed: 1 parked call waits for a decision") {
		t.Errorf("the restarted gateway with bob waiting said:\n%s\nwant \"1 parked call waits\"", strings.Join(said, "\n"))
	}
	if ok := decideAsPerson(t, r, "reject", bob); ok.code != 0 {
		t.Fatalf("reject: %s", ok.screen)
	}
	g.stop(t)

	g = startServeStdio(t, r)
	g.call(t, "mem__read_graph", map[string]any{})
	for _, l := range g.linesUntil(t, "mem__read_graph") {
		if strings.Contains(l, "resumed") || strings.Contains(l, "parked call") {
			t.Errorf("with nothing waiting, the restarted gateway says %q", l)
		}
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want 1", n)
	}
}
