package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/permissions"
)

// budgetTool is a tool of server srv for the ranking tests.
func budgetTool(srv, name, desc string) Tool {
	return Tool{Name: srv + "__" + name, Server: srv, Original: name, Description: desc,
		InputSchema: map[string]any{"type": "object"}}
}

func names(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

var rankSample = []Tool{
	budgetTool("fs", "read_file", "Read the contents of a file from disk."),
	budgetTool("fs", "write_file", "Write text to a file on disk."),
	budgetTool("gh", "search_issues", "Search the issues of a repository."),
	budgetTool("mail", "send_email", "Send an email message to a recipient."),
	budgetTool("cal", "create_event", "Create a calendar event."),
	budgetTool("misc", "zz_opaque", "Does something unrelated."),
}

func TestRankToolsRelevantFirst(t *testing.T) {
	order, named := rankTools(rankSample, []string{"please send an email to Bob about the meeting"})
	if named != 0 {
		t.Errorf("named = %d, want 0", named)
	}
	if got := rankSample[order[0]].Name; got != "mail__send_email" {
		t.Errorf("first = %s, want mail__send_email (order %v)", got, order)
	}
	// A name match outweighs a description match.
	order, _ = rankTools(rankSample, []string{"which issues mention the calendar"})
	if got := rankSample[order[0]].Name; got != "gh__search_issues" {
		t.Errorf("first = %s, want gh__search_issues", got)
	}
}

func TestRankToolsLastMessageWeighsMost(t *testing.T) {
	users := []string{"read the file notes.txt", "now create a calendar event for it"}
	order, _ := rankTools(rankSample, users)
	if got := rankSample[order[0]].Name; got != "cal__create_event" {
		t.Errorf("first = %s, want cal__create_event (the last message's)", got)
	}
	if got := rankSample[order[1]].Name; got != "fs__read_file" {
		t.Errorf("second = %s, want fs__read_file (the earlier message's)", got)
	}
}

func TestRankToolsStableOrderForTies(t *testing.T) {
	for _, users := range [][]string{nil, {"hello there"}, {"xyzzy plugh"}} {
		order, _ := rankTools(rankSample, users)
		if !slices.IsSorted(order) {
			t.Errorf("%q: no tool scores, yet the order changed: %v", users, order)
		}
	}
	// Two tools that score the same keep the order they came in.
	tools := []Tool{budgetTool("a", "x", "lookup weather"), budgetTool("b", "y", "unrelated"),
		budgetTool("c", "z", "lookup weather")}
	order, _ := rankTools(tools, []string{"weather today"})
	if !slices.Equal(order, []int{0, 2, 1}) {
		t.Errorf("order = %v, want [0 2 1]", order)
	}
}

func TestSelectToolsNamedToolAlwaysOffered(t *testing.T) {
	var tools []Tool
	for i := range 30 {
		tools = append(tools, budgetTool("srv", fmt.Sprintf("file_tool_%02d", i), "Works on a file."))
	}
	tools = append(tools, budgetTool("other", "frobnicate", "Nothing in common."))
	// Named by its model-facing name.
	offered, left := selectTools(tools, []string{"read a file with other__frobnicate please"}, 5, nil)
	if len(offered) != 5 || len(left) != len(tools)-5 {
		t.Fatalf("offered %d, left %d", len(offered), len(left))
	}
	if !slices.Contains(names(offered), "other__frobnicate") {
		t.Errorf("the named tool was left out: %v", names(offered))
	}
	// By its original name, in another letter case.
	offered, _ = selectTools(tools, []string{"use Frobnicate on the file"}, 5, nil)
	if !slices.Contains(names(offered), "other__frobnicate") {
		t.Errorf("the tool named by its original name was left out: %v", names(offered))
	}
	// Only the last message names tools.
	offered, _ = selectTools(tools, []string{"frobnicate", "now the file"}, 5, nil)
	if slices.Contains(names(offered), "other__frobnicate") {
		t.Errorf("a tool named only in an earlier message was kept: %v", names(offered))
	}
	// Named tools are offered past the budget.
	msg := "compare srv__file_tool_01 srv__file_tool_02 srv__file_tool_03 and other__frobnicate"
	offered, _ = selectTools(tools, []string{msg}, 2, nil)
	if len(offered) != 4 {
		t.Errorf("offered %v, want the 4 named ones", names(offered))
	}
	// The offer keeps the order the tools came in.
	if !slices.IsSorted(names(offered)[:3]) || names(offered)[3] != "other__frobnicate" {
		t.Errorf("offered in another order: %v", names(offered))
	}
}

func TestEachWord(t *testing.T) {
	var got []string
	eachWord("Read the readFile of HTTPServer, my_files; a été ÉTÉS tools", nil, func(w []byte) {
		got = append(got, string(w))
	})
	want := []string{"read", "read", "file", "httpserver", "file", "été", "été"}
	if !slices.Equal(got, want) {
		t.Errorf("words = %q, want %q", got, want)
	}
}

func TestEstimateTokensIsJSONBytesOverFour(t *testing.T) {
	tool := budgetTool("fs", "read_file", strings.Repeat("Read a file. ", 20))
	raw, err := json.Marshal(toOllamaTool(tool))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := EstimateTokens(tool), (len(raw)+3)/4; got != want {
		t.Errorf("EstimateTokens = %d, want %d", got, want)
	}
}

// benchTools are n tools whose names and descriptions are made of a
// vocabulary, like a large set of real servers.
func benchTools(n int) []Tool {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "read", "write", "send", "move"}
	nouns := []string{"issue", "file", "repository", "event", "message", "user", "branch", "comment", "label",
		"calendar", "contact", "invoice", "ticket", "page", "record", "document", "folder", "email", "task", "note"}
	tools := make([]Tool, n)
	for i := range tools {
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		desc := fmt.Sprintf("%s a %s by its id. Returns the %s as JSON, with its owner, its title, the time it "+
			"was last changed and a link to it. Use this to %s %ss in the workspace when the user asks.", v, o, o, v, o)
		tools[i] = budgetTool(fmt.Sprintf("srv%d", i%7), fmt.Sprintf("%s_%s_%d", v, o, i), desc)
	}
	return tools
}

// BenchmarkRankTools ranks 500 tools for one turn (the budget's 24 out of
// them), as a request does; the target is under 5 ms an op.
func BenchmarkRankTools(b *testing.B) {
	tools := benchTools(500)
	users := []string{
		"Can you look at the open issues in the latch repository?",
		"Thanks. Which of them mention the calendar invoice export?",
		"Please create a ticket for the worst one and send an email to the team about it, use srv3__send_email_4",
	}
	for b.Loop() {
		offered, _ := selectTools(tools, users, DefaultMaxTools, nil)
		if len(offered) < DefaultMaxTools {
			b.Fatal("too few offered")
		}
	}
}

// TestCallToToolNotOfferedGoesThroughGate: the offer narrows what the
// model is offered, never what a call resolves to. A call to a tool of a
// server turned off (or left out by the budget) is found by its name and
// decided by the gate as before: read_only denies it, auto runs it.
func TestCallToToolNotOfferedGoesThroughGate(t *testing.T) {
	t.Parallel()
	srv := mcpserver.NewMCPServer("notes", "1.0")
	ran := make(chan string, 4)
	srv.AddTool(mcpgo.NewTool("write_note"),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			ran <- req.Params.Name
			return mcpgo.NewToolResultText("written"), nil
		})
	s := New(Options{Model: "qwen3:8b", Policy: permissions.Policy{Mode: permissions.ReadOnly}, MaxTools: 1,
		Servers: []ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(s.Close)
	s.StartServers()
	waitToolNamed(t, s, "notes__write_note")
	if err := s.SetToolsOffered("notes", false); err != nil {
		t.Fatal(err)
	}
	if got := s.requestTools(context.Background()); len(got) != 0 {
		t.Fatalf("offered %v with the server off", got)
	}
	call := api.ToolCall{ID: "call_off00001", Function: api.ToolCallFunction{Name: "notes__write_note",
		Arguments: api.NewToolCallFunctionArguments()}}
	_, evs := callEvents(t, s, call)
	p, ok := evs[1].(*PermissionEvent)
	if !ok || p.Decision != "denied" || p.By != "policy" {
		t.Fatalf("read_only: events %+v, want the gate's denial", evs)
	}
	s.SetMode(permissions.Auto)
	call.ID = "call_off00002"
	_, evs = callEvents(t, s, call)
	if r, ok := evs[len(evs)-1].(*ToolResultEvent); !ok || !r.OK {
		t.Fatalf("auto: events %+v, want the call run", evs)
	}
	if got := <-ran; got != "write_note" {
		t.Errorf("ran %q", got)
	}
}

// TestRankScoredNamedFirstThenScoreStable: with scores (embeddings), a
// named tool still leads, then the highest score, ties in the order the
// tools came in; a zero or mismatched vector scores 0.
func TestRankScoredNamedFirstThenScoreStable(t *testing.T) {
	order, named := rankScored(rankSample, []string{"use zz_opaque now"}, []float64{0.5, 0.9, 0.5, 0.1, 0.9, 0})
	if named != 1 || !slices.Equal(order, []int{5, 1, 4, 0, 2, 3}) {
		t.Errorf("order %v named %d, want [5 1 4 0 2 3] 1", order, named)
	}
	if c := cosine([]float32{1, 0}, []float32{0, 0}); c != 0 {
		t.Errorf("cosine with zero = %v", c)
	}
	if c := cosine([]float32{1, 0}, []float32{1}); c != 0 {
		t.Errorf("cosine of mismatched lengths = %v", c)
	}
	if c := cosine([]float32{2, 0}, []float32{1, 1}); c < 0.707 || c > 0.708 {
		t.Errorf("cosine = %v, want √½", c)
	}
}
