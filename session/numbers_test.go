package session_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/ollama/ollama/api"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// bigNumbers are arguments whose numbers float64 would change: 2^53+1,
// a 19-digit integer, 1.0; as the server is sent them (keys sorted).
const bigNumbers = `{"big":9007199254740993,"long":1234567890123456789,"one":1.0}`

// rawNotes is the notes server with a tool "raw" that answers with its
// arguments' JSON as latch sent it (mcp-go keeps the request's bytes).
func rawNotes() *notesServer {
	n := newNotesServer()
	n.srv.AddTool(mcpgo.NewTool("raw", mcpgo.WithDescription("Echo the arguments.")),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(string(req.Params.RawArguments)), nil
		})
	return n
}

// exactClient is an Ollama API client of srv whose transport keeps tool
// calls' numbers as sent (session.ExactToolCalls), as latch's is.
func exactClient(srv *ollamatest.Server) *api.Client {
	u, err := url.Parse(srv.URL)
	if err != nil {
		panic(err)
	}
	return api.NewClient(u, &http.Client{Transport: session.ExactToolCalls(srv.HTTPClient().Transport)})
}

// A model's tool call (Ollama's tool_calls) with numbers past 2^53: the
// tool_call event, and the server, get them as Ollama sent them (before,
// the API client's float64 reading made them 9007199254740992 and
// 1234567890123456768).
func TestModelCallNumbersReachTheServerExact(t *testing.T) {
	t.Parallel()
	ol := newServer(t, toolsModel)
	notes := rawNotes()
	s := session.New(session.Options{Client: exactClient(ol), Host: ol.Host(), Raw: rawOf(ol), Model: toolsModel.Name,
		Policy:  permissions.Policy{Mode: permissions.Auto},
		Servers: []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: notes.srv}}})
	t.Cleanup(s.Close)
	h := &toolHarness{t: t, ol: ol, sess: s, notes: notes, r: newReader(t, s)}
	s.StartServers()
	h.waitTools("notes__raw")
	args := api.NewToolCallFunctionArguments()
	args.Set("big", json.Number("9007199254740993"))
	args.Set("long", json.Number("1234567890123456789"))
	args.Set("one", json.Number("1.0"))
	ol.Script(callsTurn(api.ToolCall{ID: "call_big", Function: api.ToolCallFunction{Name: "notes__raw", Arguments: args}}),
		ollamatest.TextTurn("done"))
	send(t, s, "echo")
	checkExact(t, h.r.turn())
}

// The same numbers in a call the model wrote as text reach the server as
// it wrote them.
func TestTextCallNumbersReachTheServerExact(t *testing.T) {
	t.Parallel()
	h := newToolHarnessOn(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto}}, rawNotes())
	h.waitTools("notes__raw")
	h.ol.Script(ollamatest.TextTurn(`{"name": "notes__raw", "arguments": {"big": 9007199254740993, "long": 1234567890123456789, "one": 1.0}}`),
		ollamatest.TextTurn("done"))
	send(t, h.sess, "echo")
	checkExact(t, h.r.turn())
}

// checkExact fails unless the turn's one call showed and sent bigNumbers.
func checkExact(t *testing.T, evs []session.Event) {
	t.Helper()
	finished(t, evs, "done")
	call := one[*session.ToolCallEvent](t, evs)
	if b, _ := json.Marshal(call.Arguments); string(b) != bigNumbers {
		t.Errorf("tool_call arguments %s, want %s", b, bigNumbers)
	}
	if res := one[*session.ToolResultEvent](t, evs); res.Content != bigNumbers {
		t.Errorf("the server was sent %s, want %s", res.Content, bigNumbers)
	}
}
