package parkindex

import (
	"context"
	"net/url"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// gateway is a real session in approve mode, as latch serve runs it: its
// calls park in its log in a state folder, and it applies the decisions
// dropped in its inbox (WatchInbox).
type gateway struct {
	t    testing.TB
	dir  string
	sess *session.Session
}

// newGateway starts a gateway on the state folder dir.
func newGateway(t testing.TB, dir string) *gateway {
	t.Helper()
	srv := mcpserver.NewMCPServer("notes", "1.0", mcpserver.WithToolCapabilities(true))
	srv.AddTool(mcpgo.NewTool("write_note", mcpgo.WithDescription("Write a note."), mcpgo.WithString("text", mcpgo.Required())),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("saved"), nil
		})
	ol := ollamatest.New(ollamatest.Model{Name: "tiny", Size: 1_000_000, ParameterSize: "10M", QuantizationLevel: "F16"})
	t.Cleanup(ol.Close)
	u, _ := url.Parse(ol.URL)
	g := &gateway{t: t, dir: dir}
	g.sess = session.New(session.Options{Model: "tiny", Client: ol.Client(), Host: ol.Host(), Raw: session.RawOllama{URL: u, HTTP: ol.HTTPClient()},
		LogDir: dir, NonInteractive: true, Policy: permissions.Policy{Mode: permissions.Approve},
		Servers: []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(g.sess.Close)
	g.sess.StartServers()
	mcptestutil.WaitFor(t, time.Minute, "the notes server's tools", func() bool {
		tools, err := g.sess.Tools("")
		return err == nil && len(tools) > 0
	})
	return g
}

// park has client call write_note with args; it parks, and its
// invocation id is returned.
func (g *gateway) park(client string, args map[string]any) string {
	g.t.Helper()
	out := g.sess.GatewayCall(context.Background(), session.GatewayCall{Client: client, Name: "notes__write_note", Arguments: args})
	if out.Decision != session.GatewayParked {
		g.t.Fatalf("the call did not park: %+v", out)
	}
	return out.ID
}

// decide decides a parked call as latch approve's decision does.
func (g *gateway) decide(id string, approve bool, by string) error {
	return g.sess.GatewayDecide(id, approve, by, "")
}

// ready opens and catches up the index of dir, failing the test on error.
func ready(t testing.TB, dir string, o Options) *Index {
	t.Helper()
	x, err := Ready(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	return x
}

// waiting is the ids of the calls waiting, in order, after a catch-up.
func waiting(t testing.TB, x *Index) []string {
	t.Helper()
	if err := x.CatchUp(); err != nil {
		t.Fatal(err)
	}
	calls, err := x.Waiting()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range calls {
		ids = append(ids, c.CallID)
	}
	return ids
}

// logged is the session log's own reading of its calls (the truth), with
// what the index does not keep taken away.
func logged(t testing.TB, dir, sessionID string) []session.ParkedCall {
	t.Helper()
	calls, err := session.ParkedCallsOf(dir, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		calls[i].Result = session.LoggedResult{IsError: calls[i].Result.IsError, Error: calls[i].Result.Error}
	}
	return calls
}

// eventually waits, bounded, until ok.
func eventually(t testing.TB, what string, ok func() bool) {
	t.Helper()
	mcptestutil.WaitFor(t, time.Minute, what, ok)
}
