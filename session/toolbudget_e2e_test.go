package session_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// bigServer is an in-process MCP server with 60 tools: 5 about the
// weather, the rest about other things.
func bigServer() *mcpserver.MCPServer {
	srv := mcpserver.NewMCPServer("big", "1.0", mcpserver.WithToolCapabilities(true))
	ok := func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("ok"), nil
	}
	weather := []string{"weather_forecast", "weather_alerts", "weather_history", "rain_radar", "wind_report"}
	for _, n := range weather {
		srv.AddTool(mcpgo.NewTool(n, mcpgo.WithDescription("Weather data for a city: "+strings.ReplaceAll(n, "_", " ")+".")), ok)
	}
	topics := []string{"invoice", "ticket", "branch", "contact", "folder", "playlist", "recipe", "parcel", "budget", "lesson", "badge"}
	verbs := []string{"create", "delete", "list", "update", "archive"}
	for i := 0; len(weather)+i < 60; i++ {
		topic, verb := topics[i%len(topics)], verbs[i/len(topics)]
		srv.AddTool(mcpgo.NewTool(fmt.Sprintf("%s_%s", verb, topic),
			mcpgo.WithDescription(fmt.Sprintf("%s a %s in the office system.", verb, topic))), ok)
	}
	return srv
}

// budgetHarness is a session on a fake Ollama holding the notes server (4
// tools) and the big one (60), with a budget of 10.
func budgetHarness(t *testing.T, servers ...string) (*toolHarness, int) {
	t.Helper()
	ol := newServer(t, toolsModel)
	notes := newNotesServer()
	o := session.Options{Model: toolsModel.Name, MaxTools: 10}
	all := map[string]session.ServerConfig{
		"big":   {Name: "big", Transport: "inprocess", InProcess: bigServer()},
		"notes": {Name: "notes", Transport: "inprocess", InProcess: notes.srv},
	}
	want := 0
	for _, n := range servers {
		o.Servers = append(o.Servers, all[n])
		want += map[string]int{"big": 60, "notes": 4}[n]
	}
	s := newSession(t, ol, o)
	h := &toolHarness{t: t, ol: ol, sess: s, notes: notes, r: newReader(t, s)}
	s.StartServers()
	mcptestutil.WaitFor(t, timeout, "every tool listed", func() bool {
		tools, err := s.Tools("")
		return err == nil && len(tools) == want
	})
	return h, want
}

func noticesOf(evs []session.Event) []string {
	var out []string
	for _, n := range of[*session.Notice](evs) {
		out = append(out, n.Text)
	}
	return out
}

// TestToolBudgetOffersTheRelevantTools: with 64 tools and a budget of 10,
// the request carries 10, the weather ones among them, and one line says
// so; later turns say nothing while only the ranking moves (a named tool
// changes what is left out, /tools lists it), and again when the tools
// offerable change.
func TestToolBudgetOffersTheRelevantTools(t *testing.T) {
	t.Parallel()
	h, _ := budgetHarness(t, "big", "notes")
	h.ol.Script(ollamatest.TextTurn("sunny"), ollamatest.TextTurn("still sunny"), ollamatest.TextTurn("ok"),
		ollamatest.TextTurn("fine"))

	send(t, h.sess, "What is the weather forecast for Paris? Any weather alerts, or rain?")
	evs := h.r.turn()
	req := h.ol.WaitRequests(1, timeout)[0]
	got := offered(req)
	if len(got) != 10 {
		t.Fatalf("offered %d tools, want 10: %v", len(got), got)
	}
	for _, n := range []string{"big__weather_forecast", "big__weather_alerts", "big__weather_history", "big__rain_radar"} {
		if !slices.Contains(got, n) {
			t.Errorf("%s was not offered: %v", n, got)
		}
	}
	notes := noticesOf(evs)
	want := "offered 10 of 64 tools, the most relevant each turn (ollama.max_tools); /tools for the list"
	if len(notes) != 1 || notes[0] != want {
		t.Fatalf("notices %q, want one: %q", notes, want)
	}

	// Another conversation, another ranking: nothing said.
	send(t, h.sess, "and the weather forecast for Lyon?")
	if notes := noticesOf(h.r.turn()); len(notes) != 0 {
		t.Errorf("notices %q with the tools unchanged", notes)
	}
	// Naming a tool offers it; the set left out changes, silently, and
	// /tools says what it is.
	send(t, h.sess, "use big__archive_badge on the old ones")
	evs = h.r.turn()
	if got := offered(h.ol.WaitRequests(3, timeout)[2]); !slices.Contains(got, "big__archive_badge") || len(got) != 10 {
		t.Errorf("offered %v, want 10 with the named big__archive_badge", got)
	}
	if notes := noticesOf(evs); len(notes) != 0 {
		t.Errorf("notices %q when only the ranking changed", notes)
	}
	o, err := h.sess.ToolOfferOf("")
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, t := range o.LeftOut {
		left = append(left, t.Name)
	}
	if len(left) != 54 || slices.Contains(left, "big__archive_badge") {
		t.Errorf("left out %v, want the 54 not offered last", left)
	}
	// Other tools offerable (a server off): said again, once.
	if err := h.sess.SetToolsOffered("notes", false); err != nil {
		t.Fatal(err)
	}
	send(t, h.sess, "what else?")
	if notes := noticesOf(h.r.turn()); len(notes) != 1 || !strings.HasPrefix(notes[0], "offered 10 of 60 tools") {
		t.Errorf("notices %q, want one for the changed tools", notes)
	}
}

// TestToolsOffTakesAServerOutOfTheRequest: /tools SERVER off removes the
// server's tools from the next request; on brings them back. A config
// tools list offers only the tools it names.
func TestToolsOffTakesAServerOutOfTheRequest(t *testing.T) {
	t.Parallel()
	h, _ := budgetHarness(t, "notes")
	h.ol.Script(ollamatest.TextTurn("one"), ollamatest.TextTurn("two"), ollamatest.TextTurn("three"))

	send(t, h.sess, "hi")
	h.r.turn()
	if got := offered(h.ol.WaitRequests(1, timeout)[0]); !slices.Equal(got, notesTools) {
		t.Fatalf("offered %v, want %v", got, notesTools)
	}
	if err := h.sess.SetToolsOffered("notes", false); err != nil {
		t.Fatal(err)
	}
	send(t, h.sess, "hi again")
	h.r.turn()
	if got := offered(h.ol.WaitRequests(2, timeout)[1]); len(got) != 0 {
		t.Errorf("offered %v with notes off", got)
	}
	if err := h.sess.SetToolsOffered("notes", true); err != nil {
		t.Fatal(err)
	}
	send(t, h.sess, "and again")
	h.r.turn()
	if got := offered(h.ol.WaitRequests(3, timeout)[2]); !slices.Equal(got, notesTools) {
		t.Errorf("offered %v after on, want %v", got, notesTools)
	}
	if err := h.sess.SetToolsOffered("nope", false); err == nil {
		t.Error("no error for an unknown server")
	}
}

func TestServerToolsListOffersOnlyThose(t *testing.T) {
	t.Parallel()
	ol := newServer(t, toolsModel)
	notes := newNotesServer()
	s := newSession(t, ol, session.Options{Model: toolsModel.Name,
		ServerTools: map[string][]string{"notes": {"read_note", "no_such_tool"}},
		Servers:     []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: notes.srv}}})
	r := newReader(t, s)
	s.StartServers()
	mcptestutil.WaitFor(t, timeout, "notes connected", func() bool {
		o, err := s.ToolOfferOf("")
		return err == nil && len(o.Offered)+len(o.NotOffered) == 4 && len(o.Unknown["notes"]) == 1
	})
	o, _ := s.ToolOfferOf("notes")
	if len(o.Offered) != 1 || o.Offered[0].Name != "notes__read_note" || len(o.NotOffered) != 3 {
		t.Errorf("offer %+v", o)
	}
	if !slices.Equal(o.Unknown["notes"], []string{"no_such_tool"}) || o.MaxTools != session.DefaultMaxTools {
		t.Errorf("unknown %v, max %d", o.Unknown, o.MaxTools)
	}
	if o.Tokens != session.EstimateTokens(o.Offered[0]) {
		t.Errorf("tokens %d", o.Tokens)
	}
	ol.Script(ollamatest.TextTurn("ok"))
	send(t, s, "read it")
	r.turn()
	if got := offered(ol.WaitRequests(1, timeout)[0]); !slices.Equal(got, []string{"notes__read_note"}) {
		t.Errorf("offered %v, want only notes__read_note", got)
	}
}
