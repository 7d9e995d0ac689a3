package session_test

import (
	"context"
	"encoding/json"
	"latch/mcp/mcptestutil"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// These tests drive the tool loop end to end: a fake Ollama scripts the
// model's tool calls, a real in-process MCP server runs them, and each test
// checks what the user sees (events) and what the model is told (the tool
// messages in the next request the fake Ollama recorded).

// toolsModel can call tools (and does not think, to keep the streams short).
var toolsModel = ollamatest.Model{Name: "qwen3:8b", Family: "qwen3", Capabilities: []string{"completion", "tools"}}

// The texts the notes server answers with.
const (
	noteText    = "note: remember the milk"
	failureText = "disk full: the note was not saved"
)

// notesServer is an in-process MCP server whose tools record what they were
// asked to do: writes is the witness of how many times a write really ran.
type notesServer struct {
	srv *mcpserver.MCPServer

	mu     sync.Mutex
	writes []string // the text of every write_note that ran, in order
	reads  int

	slowStarted chan struct{} // gets a token each time slow starts
}

func newNotesServer() *notesServer {
	n := &notesServer{slowStarted: make(chan struct{}, 16)}
	n.srv = mcpserver.NewMCPServer("notes", "1.0", mcpserver.WithToolCapabilities(true))
	n.srv.AddTool(mcpgo.NewTool("read_note", mcpgo.WithDescription("Read the note."), mcpgo.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			n.mu.Lock()
			n.reads++
			n.mu.Unlock()
			return mcpgo.NewToolResultText(noteText), nil
		})
	n.addWrite("Write a note.")
	n.srv.AddTool(mcpgo.NewTool("slow", mcpgo.WithDescription("Take a long time."), mcpgo.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			n.slowStarted <- struct{}{}
			// Far beyond any wait of the tests: only a cancel ends it
			// in time.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * timeout):
				return mcpgo.NewToolResultText("slow finished"), nil
			}
		})
	n.srv.AddTool(mcpgo.NewTool("fail_note", mcpgo.WithDescription("Fail to save a note.")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultError(failureText), nil
		})
	return n
}

// addWrite adds (or redefines) write_note with the given description.
func (n *notesServer) addWrite(description string) {
	n.srv.AddTool(mcpgo.NewTool("write_note", mcpgo.WithDescription(description), mcpgo.WithString("text", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			text := req.GetString("text", "")
			n.mu.Lock()
			n.writes = append(n.writes, text)
			n.mu.Unlock()
			return mcpgo.NewToolResultText("saved: " + text), nil
		})
}

func (n *notesServer) written() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.writes)
}

func (n *notesServer) readCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.reads
}

// notesTools are the model-facing names of the notes server's tools.
var notesTools = []string{"notes__fail_note", "notes__read_note", "notes__slow", "notes__write_note"}

// toolHarness is a session with the notes server connected, talking to a
// fake Ollama.
type toolHarness struct {
	t     *testing.T
	ol    *ollamatest.Server
	sess  *session.Session
	notes *notesServer
	r     *reader
}

// newToolHarness starts a fake Ollama with model (toolsModel when none is
// given) and a session on it holding the notes server, and waits until the
// server is connected and its tools are named.
func newToolHarness(t *testing.T, o session.Options, model ...ollamatest.Model) *toolHarness {
	t.Helper()
	return newToolHarnessOn(t, o, newNotesServer(), model...)
}

// newToolHarnessOn is newToolHarness with the given notes server.
func newToolHarnessOn(t *testing.T, o session.Options, notes *notesServer, model ...ollamatest.Model) *toolHarness {
	t.Helper()
	if len(model) == 0 {
		model = []ollamatest.Model{toolsModel}
	}
	ol := newServer(t, model...)
	if o.Model == "" {
		o.Model = model[0].Name
	}
	o.Servers = []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: notes.srv}}
	s := newSession(t, ol, o)
	h := &toolHarness{t: t, ol: ol, sess: s, notes: notes, r: newReader(t, s)}
	s.StartServers()
	h.waitTools(notesTools...)
	return h
}

// waitTools waits until the notes server is connected and the session has
// every one of names among its tools. (The state turns "connected" a moment
// before the tools are named: wait for both.)
func (h *toolHarness) waitTools(names ...string) {
	h.t.Helper()
	mcptestutil.WaitFor(h.t, timeout, "the notes server connected with its tools", func() bool {
		sts := h.sess.Servers()
		if len(sts) != 1 || sts[0].State != session.StateConnected {
			return false
		}
		tools, err := h.sess.Tools("")
		if err != nil {
			return false
		}
		have := map[string]bool{}
		for _, t := range tools {
			have[t.Name] = true
		}
		for _, n := range names {
			if !have[n] {
				return false
			}
		}
		return true
	})
}

// toolCall is a call of the model to a tool, with string arguments given as
// key, value pairs.
func toolCall(id, name string, kv ...string) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	for i := 0; i+1 < len(kv); i += 2 {
		args.Set(kv[i], kv[i+1])
	}
	return api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: name, Arguments: args}}
}

// callsTurn is a reply of the model that calls the tools, all in one chunk
// as Ollama sends them.
func callsTurn(calls ...api.ToolCall) ollamatest.Turn {
	return ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: calls}}}
}

// toolMessages returns the tool messages of a request, in order.
func toolMessages(req api.ChatRequest) []api.Message {
	var out []api.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// offered returns the names of the tools a request offered.
func offered(req api.ChatRequest) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// errorOf decodes a tool message that reports a failure: exactly
// {"error": "..."}. It fails the test for anything else.
func errorOf(t testing.TB, content string) string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal([]byte(content), &m); err != nil || len(m) != 1 || m["error"] == "" {
		t.Fatalf("tool message %q is not {\"error\": \"…\"}", content)
	}
	return m["error"]
}

// requests waits for n chat requests and returns them, failing the test
// unless there are exactly n.
func (h *toolHarness) requests(n int) []api.ChatRequest {
	h.t.Helper()
	reqs := h.ol.WaitRequests(n, timeout)
	if len(reqs) != n {
		h.t.Fatalf("%d chat requests, want %d", len(reqs), n)
	}
	return reqs
}

// lastToolMessages returns the tool messages of req's current turn: those
// after its last user message.
func lastToolMessages(req api.ChatRequest) []api.Message {
	msgs := req.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			msgs = msgs[i+1:]
			break
		}
	}
	return toolMessages(api.ChatRequest{Messages: msgs})
}

// onlyToolMessage returns the one tool message of req's current turn,
// checking that it answers the call id with the tool's name.
func onlyToolMessage(t testing.TB, req api.ChatRequest, callID, name string) api.Message {
	t.Helper()
	msgs := lastToolMessages(req)
	if len(msgs) != 1 {
		t.Fatalf("request has %d tool messages in this turn, want 1: %+v", len(msgs), req.Messages)
	}
	m := msgs[0]
	if m.ToolCallID != callID || m.ToolName != name {
		t.Errorf("tool message answers %q (%s), want %q (%s)", m.ToolCallID, m.ToolName, callID, name)
	}
	return m
}

// decisions returns the decisions of the permission events for a call,
// as "decision/by".
func decisions(evs []session.Event, callID string) []string {
	var out []string
	for _, p := range of[*session.PermissionEvent](evs) {
		if p.CallID == callID {
			out = append(out, p.Decision+"/"+p.By)
		}
	}
	return out
}

// isAsked stops at the "asked" permission event of a call.
func isAsked(callID string) func(session.Event) bool {
	return func(e session.Event) bool {
		p, ok := e.(*session.PermissionEvent)
		return ok && p.CallID == callID && p.Decision == "asked"
	}
}

// finished checks that evs end with a turn_done of reason stop and that the
// model's final answer is want.
func finished(t testing.TB, evs []session.Event, want string) {
	t.Helper()
	if d := done(t, evs); d.Reason != session.ReasonStop {
		t.Fatalf("turn ended %q, want stop: %s", d.Reason, kinds(evs))
	}
	msgs := of[*session.AssistantMessage](evs)
	if len(msgs) == 0 || msgs[len(msgs)-1].Content != want {
		t.Errorf("last assistant_message = %+v, want %q", msgs, want)
	}
}

// index returns the position of the first event of evs satisfying f, or -1.
func index(evs []session.Event, f func(session.Event) bool) int {
	return slices.IndexFunc(evs, f)
}

func TestToolReadOnlyAllowListedRuns(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{
		Mode: permissions.ReadOnly, ServerAllow: map[string][]string{"notes": {"read_note"}},
	}})
	h.ol.Script(callsTurn(toolCall("call_read0001", "notes__read_note")), ollamatest.TextTurn("The note says to buy milk."))

	send(t, h.sess, "what does my note say?")
	evs := h.r.turn()
	finished(t, evs, "The note says to buy milk.")

	call := one[*session.ToolCallEvent](t, evs)
	if call.CallID != "call_read0001" || call.Server != "notes" || call.Tool != "notes__read_note" || !call.ReadOnly || call.Turn != 1 {
		t.Errorf("tool_call = %+v", call)
	}
	p := one[*session.PermissionEvent](t, evs)
	if p.Decision != "allowed" || p.By != permissions.ByPolicy || p.Mode != "read_only" || !strings.Contains(p.Reason, "allow list of server notes") {
		t.Errorf("permission = %+v, want allowed by policy (the server's allow list) in read_only", p)
	}
	res := one[*session.ToolResultEvent](t, evs)
	if !res.OK || res.IsError || res.Error != "" || res.Preview != noteText || res.Size != len(noteText) || res.CallID != "call_read0001" {
		t.Errorf("tool_result = %+v, want OK with the note", res)
	}
	// tool_call, then permission, then tool_result, then the answer.
	iCall := index(evs, func(e session.Event) bool { return e == session.Event(call) })
	iPerm := index(evs, func(e session.Event) bool { return e == session.Event(p) })
	iRes := index(evs, func(e session.Event) bool { return e == session.Event(res) })
	iMsg := index(evs, func(e session.Event) bool { _, ok := e.(*session.AssistantMessage); return ok })
	if !(iCall < iPerm && iPerm < iRes && iRes < iMsg) {
		t.Errorf("events out of order: %s", kinds(evs))
	}
	if got := h.notes.readCount(); got != 1 {
		t.Errorf("read_note ran %d times, want 1", got)
	}

	reqs := h.requests(2)
	if got := offered(reqs[0]); !slices.Equal(got, notesTools) {
		t.Errorf("first request offered %v, want %v", got, notesTools)
	}
	// The second request carries the call and its result, in order.
	msgs := reqs[1].Messages
	if len(msgs) != 3 || msgs[0].Role != "user" || msgs[1].Role != "assistant" || msgs[2].Role != "tool" {
		t.Fatalf("second request messages = %+v, want user, assistant (the call), tool", msgs)
	}
	if tc := msgs[1].ToolCalls; len(tc) != 1 || tc[0].ID != "call_read0001" || tc[0].Function.Name != "notes__read_note" {
		t.Errorf("the assistant message carries calls %+v", tc)
	}
	if m := onlyToolMessage(t, reqs[1], "call_read0001", "notes__read_note"); m.Content != noteText {
		t.Errorf("tool message content %q, want %q", m.Content, noteText)
	}
}

func TestToolReadOnlyDeniesWrite(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{
		ServerAllow: map[string][]string{"notes": {"read_note"}},
	}})
	h.ol.Script(callsTurn(toolCall("call_write001", "notes__write_note", "text", "hi")), ollamatest.TextTurn("I may not write notes."))

	send(t, h.sess, "save hi")
	evs := h.r.turn()
	finished(t, evs, "I may not write notes.")

	p := one[*session.PermissionEvent](t, evs)
	if p.Decision != "denied" || p.By != permissions.ByPolicy || p.Mode != "read_only" {
		t.Errorf("permission = %+v, want denied by policy in read_only", p)
	}
	containsAll(t, p.Reason, "read_only", "/allow notes__write_note")
	res := one[*session.ToolResultEvent](t, evs)
	if res.OK || !strings.HasPrefix(res.Error, "denied: ") {
		t.Errorf("tool_result = %+v, want the denial", res)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Fatalf("write_note ran %d times in read_only: %v", len(w), w)
	}

	reqs := h.requests(2)
	m := onlyToolMessage(t, reqs[1], "call_write001", "notes__write_note")
	msg := errorOf(t, m.Content)
	if !strings.HasPrefix(msg, "denied: ") {
		t.Errorf("the model was told %q, want a denial", msg)
	}
	containsAll(t, msg, "read_only", "notes__write_note")
}

func TestToolCallToAClosedServer(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	h.ol.Script(callsTurn(toolCall("call_gone0001", "notes__write_note", "text", "hi")), ollamatest.TextTurn("The notes server is gone."))

	send(t, h.sess, "save hi")
	evs := h.r.until(isAsked("call_gone0001"))
	// While the call waits for the user, the user closes the server.
	if err := h.sess.CloseServer("notes"); err != nil {
		t.Fatal(err)
	}
	if st := h.sess.Servers()[0]; st.State != session.StateClosed {
		t.Fatalf("after CloseServer the server is %v", st.State)
	}
	if !h.sess.AnswerAsk("call_gone0001", session.AnswerYes) {
		t.Fatal("AnswerAsk found no waiting call")
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "The notes server is gone.")

	res := one[*session.ToolResultEvent](t, evs)
	if res.OK || res.Error == "" {
		t.Errorf("tool_result = %+v, want an error", res)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("write_note ran on a closed server: %v", w)
	}
	reqs := h.requests(2)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], "call_gone0001", "notes__write_note").Content)
	containsAll(t, msg, "notes", "closed")
	if msg != res.Error {
		t.Errorf("the model was told %q, the user saw %q", msg, res.Error)
	}
	if got := offered(reqs[1]); len(got) != 0 {
		t.Errorf("the next request still offers the closed server's tools: %v", got)
	}
}

func TestToolNotOfferedIsNotRun(t *testing.T) {
	t.Parallel()
	// A model that calls a tool it was not offered writes the call as text
	// (docs/OLLAMA.md): nothing runs, and the text is the answer.
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto}})
	h.ol.Script(callsTurn(toolCall("call_fake0001", "notes__delete_all")))

	send(t, h.sess, "delete everything")
	evs := h.r.turn()
	if d := done(t, evs); d.Reason != session.ReasonStop {
		t.Fatalf("turn ended %q: %s", d.Reason, kinds(evs))
	}
	if n := len(of[*session.ToolCallEvent](evs)); n != 0 {
		t.Errorf("%d tool_call events for a call written as text", n)
	}
	msg := one[*session.AssistantMessage](t, evs)
	containsAll(t, msg.Content, `"name":"notes__delete_all"`)
	h.requests(1)
}

func TestToolSeveralCallsInOneReplyRunInOrder(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{
		ServerAllow: map[string][]string{"notes": {"read_note", "write_note"}},
	}})
	calls := []api.ToolCall{
		toolCall("call_first001", "notes__write_note", "text", "one"),
		toolCall("call_second01", "notes__read_note"),
		toolCall("call_third001", "notes__write_note", "text", "two"),
	}
	h.ol.Script(callsTurn(calls...), ollamatest.TextTurn("Done all three."))

	send(t, h.sess, "write one, read, write two")
	evs := h.r.turn()
	finished(t, evs, "Done all three.")

	wantIDs := []string{"call_first001", "call_second01", "call_third001"}
	var callIDs, resultIDs []string
	for _, c := range of[*session.ToolCallEvent](evs) {
		callIDs = append(callIDs, c.CallID)
	}
	for _, r := range of[*session.ToolResultEvent](evs) {
		resultIDs = append(resultIDs, r.CallID)
		if !r.OK {
			t.Errorf("tool_result %+v, want OK", r)
		}
	}
	if !slices.Equal(callIDs, wantIDs) || !slices.Equal(resultIDs, wantIDs) {
		t.Errorf("tool_call ids %v, tool_result ids %v, want %v", callIDs, resultIDs, wantIDs)
	}
	// One call ends before the next starts.
	var seq []string
	for _, e := range evs {
		switch e := e.(type) {
		case *session.ToolCallEvent:
			seq = append(seq, "call:"+e.CallID)
		case *session.ToolResultEvent:
			seq = append(seq, "result:"+e.CallID)
		}
	}
	wantSeq := []string{"call:call_first001", "result:call_first001", "call:call_second01", "result:call_second01",
		"call:call_third001", "result:call_third001"}
	if !slices.Equal(seq, wantSeq) {
		t.Errorf("calls ran as %v, want %v", seq, wantSeq)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"one", "two"}) {
		t.Errorf("writes %v, want [one two]", w)
	}

	reqs := h.requests(2)
	msgs := toolMessages(reqs[1])
	want := []api.Message{
		{ToolCallID: "call_first001", ToolName: "notes__write_note", Content: "saved: one"},
		{ToolCallID: "call_second01", ToolName: "notes__read_note", Content: noteText},
		{ToolCallID: "call_third001", ToolName: "notes__write_note", Content: "saved: two"},
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d tool messages, want %d: %+v", len(msgs), len(want), msgs)
	}
	for i, m := range msgs {
		if m.ToolCallID != want[i].ToolCallID || m.ToolName != want[i].ToolName || m.Content != want[i].Content {
			t.Errorf("tool message %d = %+v, want %+v", i, m, want[i])
		}
	}
	// The tool messages come right after the assistant message that made
	// the calls.
	if n := len(reqs[1].Messages); n != 5 || reqs[1].Messages[1].Role != "assistant" || len(reqs[1].Messages[1].ToolCalls) != 3 {
		t.Errorf("second request messages = %+v", reqs[1].Messages)
	}
}

func TestToolRoundLimit(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{MaxToolRounds: 3, Policy: permissions.Policy{
		ServerAllow: map[string][]string{"notes": {"read_note"}},
	}})
	// A model that never stops calling read_note.
	h.ol.SetDefault(callsTurn(toolCall("", "notes__read_note")))

	send(t, h.sess, "read it forever")
	evs := h.r.turn()
	msg := failed(t, evs, session.ReasonToolLimit)
	containsAll(t, msg, "3 rounds", "limit")

	// Three rounds ran; the model's fourth request for a tool was not run.
	if n := h.notes.readCount(); n != 3 {
		t.Errorf("read_note ran %d times, want 3 (the limit)", n)
	}
	if n := len(of[*session.ToolResultEvent](evs)); n != 3 {
		t.Errorf("%d tool_result events, want 3", n)
	}
	reqs := h.requests(4)
	if n := len(toolMessages(reqs[3])); n != 3 {
		t.Errorf("the last request carries %d tool messages, want 3", n)
	}

	// The user lets the model go on.
	h.ol.SetDefault(ollamatest.TextTurn("Enough reading."))
	send(t, h.sess, "go on")
	finished(t, h.r.turn(), "Enough reading.")
}

func TestToolAskYes(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	h.ol.Script(callsTurn(toolCall("call_ask00001", "notes__write_note", "text", "hi")), ollamatest.TextTurn("Saved."))

	send(t, h.sess, "save hi")
	evs := h.r.until(isAsked("call_ask00001"))
	if w := h.notes.written(); len(w) != 0 {
		t.Fatalf("write_note ran before the user answered: %v", w)
	}
	if !h.sess.Running() {
		t.Error("the turn is not running while the call waits")
	}
	if !h.sess.AnswerAsk("call_ask00001", session.AnswerYes) {
		t.Fatal("AnswerAsk found no waiting call")
	}
	if h.sess.AnswerAsk("call_ask00001", session.AnswerNo) {
		t.Error("a second answer to the same call was taken")
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Saved.")

	if got := decisions(evs, "call_ask00001"); !slices.Equal(got, []string{"asked/policy", "allowed/user"}) {
		t.Errorf("permission events %v, want asked by policy then allowed by the user", got)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"hi"}) {
		t.Errorf("writes %v, want exactly one", w)
	}
	if res := one[*session.ToolResultEvent](t, evs); !res.OK {
		t.Errorf("tool_result %+v", res)
	}
	reqs := h.requests(2)
	if m := onlyToolMessage(t, reqs[1], "call_ask00001", "notes__write_note"); m.Content != "saved: hi" {
		t.Errorf("tool message %q", m.Content)
	}
}

func TestToolAskNo(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	h.ol.Script(callsTurn(toolCall("call_ask00002", "notes__write_note", "text", "hi")), ollamatest.TextTurn("Not saved, as you wish."))

	send(t, h.sess, "save hi")
	evs := h.r.until(isAsked("call_ask00002"))
	if !h.sess.AnswerAsk("call_ask00002", session.AnswerNo) {
		t.Fatal("AnswerAsk found no waiting call")
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Not saved, as you wish.")

	if got := decisions(evs, "call_ask00002"); !slices.Equal(got, []string{"asked/policy", "denied/user"}) {
		t.Errorf("permission events %v, want asked by policy then denied by the user", got)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("write_note ran after the user said no: %v", w)
	}
	reqs := h.requests(2)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], "call_ask00002", "notes__write_note").Content)
	containsAll(t, msg, "denied", "user")
}

func TestToolAskAlwaysGrantsTheTool(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	h.ol.Script(
		callsTurn(toolCall("call_ask00003", "notes__write_note", "text", "one")), ollamatest.TextTurn("Saved one."),
		callsTurn(toolCall("call_ask00004", "notes__write_note", "text", "two")), ollamatest.TextTurn("Saved two."),
	)

	send(t, h.sess, "save one")
	evs := h.r.until(isAsked("call_ask00003"))
	if !h.sess.AnswerAsk("call_ask00003", session.AnswerAlways) {
		t.Fatal("AnswerAsk found no waiting call")
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Saved one.")
	if got := decisions(evs, "call_ask00003"); !slices.Equal(got, []string{"asked/policy", "allowed/user"}) {
		t.Errorf("first call: permission events %v", got)
	}
	granted := false
	for _, e := range h.sess.AllowList() {
		if e.Name == "notes__write_note" && e.Source == permissions.FromSession {
			granted = true
		}
	}
	if !granted {
		t.Errorf("allow list %+v has no session grant for notes__write_note", h.sess.AllowList())
	}

	// The next call to the same tool runs without asking.
	send(t, h.sess, "save two")
	evs = h.r.turn()
	finished(t, evs, "Saved two.")
	p := one[*session.PermissionEvent](t, evs)
	if p.Decision != "allowed" || p.By != permissions.ByUser || !strings.Contains(p.Reason, "allowed for this session") {
		t.Errorf("second call: permission %+v, want allowed by the session grant", p)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"one", "two"}) {
		t.Errorf("writes %v, want [one two]", w)
	}
}

func TestToolAskCancelledTurn(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	h.ol.Script(callsTurn(toolCall("call_ask00005", "notes__write_note", "text", "hi")), ollamatest.TextTurn("unreachable"))

	send(t, h.sess, "save hi")
	evs := h.r.until(isAsked("call_ask00005"))
	h.sess.Cancel()
	evs = append(evs, h.r.turn()...)
	if d := done(t, evs); d.Reason != session.ReasonCancelled {
		t.Fatalf("turn ended %q, want cancelled: %s", d.Reason, kinds(evs))
	}
	if got := decisions(evs, "call_ask00005"); !slices.Equal(got, []string{"asked/policy", "denied/user"}) {
		t.Errorf("permission events %v", got)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("write_note ran in a cancelled turn: %v", w)
	}
	if h.sess.AnswerAsk("call_ask00005", session.AnswerYes) {
		t.Error("an answer after the cancel was taken")
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("write_note ran after a late answer: %v", w)
	}
	if n := len(h.ol.Requests()); n != 1 {
		t.Errorf("%d chat requests, want 1: a cancelled turn does not go on", n)
	}
}

func TestToolAskNonInteractiveDenies(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{NonInteractive: true, Policy: permissions.Policy{Mode: permissions.Ask}})
	h.ol.Script(callsTurn(toolCall("call_ask00006", "notes__write_note", "text", "hi")), ollamatest.TextTurn("No one could approve it."))

	send(t, h.sess, "save hi")
	evs := h.r.turn()
	finished(t, evs, "No one could approve it.")
	p := one[*session.PermissionEvent](t, evs)
	if p.Decision != "denied" || p.By != permissions.ByPolicy || p.Mode != "ask" {
		t.Errorf("permission %+v, want denied by policy in ask mode", p)
	}
	containsAll(t, p.Reason, "no one to ask", "--allow notes__write_note")
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("write_note ran with no one to ask: %v", w)
	}
	reqs := h.requests(2)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], "call_ask00006", "notes__write_note").Content)
	containsAll(t, msg, "denied", "no one to ask")
}

func TestToolApproveParksUntilDecided(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Approve}})
	h.ol.Script(
		callsTurn(toolCall("call_park0001", "notes__write_note", "text", "a")), ollamatest.TextTurn("Saved a."),
		callsTurn(toolCall("call_park0002", "notes__write_note", "text", "b")), ollamatest.TextTurn("Not saved b."),
	)
	isParked := func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok }

	// Approved: runs exactly once.
	send(t, h.sess, "save a")
	evs := h.r.until(isParked)
	parked := evs[len(evs)-1].(*session.ApprovalParkedEvent)
	if parked.ApprovalID == "" || parked.CallID != "call_park0001" || parked.Server != "notes" ||
		parked.Tool != "notes__write_note" || parked.Arguments["text"] != "a" {
		t.Errorf("approval_parked = %+v", parked)
	}
	id := parked.ApprovalID
	aps := h.sess.Approvals()
	if len(aps) != 1 || aps[0].ID != id || aps[0].CallID != "call_park0001" || aps[0].Name != "notes__write_note" ||
		aps[0].Tool != "write_note" || aps[0].Server != "notes" || aps[0].Arguments["text"] != "a" {
		t.Errorf("Approvals() = %+v, want the parked call %s", aps, id)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Fatalf("write_note ran while parked: %v", w)
	}
	if !h.sess.Running() {
		t.Error("the turn is not running while the call is parked")
	}
	if err := h.sess.Decide(id, true); err != nil {
		t.Fatalf("Decide(%s, true): %v", id, err)
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Saved a.")
	resolved := one[*session.ApprovalResolvedEvent](t, evs)
	if resolved.ApprovalID != id || resolved.CallID != "call_park0001" || resolved.Decision != "approved" || resolved.By != "user" {
		t.Errorf("approval_resolved = %+v", resolved)
	}
	if got := decisions(evs, "call_park0001"); !slices.Equal(got, []string{"parked/policy", "allowed/user"}) {
		t.Errorf("permission events %v", got)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"a"}) {
		t.Fatalf("writes %v, want exactly one", w)
	}
	if err := h.sess.Decide(id, true); err == nil {
		t.Error("a second Decide of the same approval succeeded")
	}
	if err := h.sess.Decide("a999", true); err == nil {
		t.Error("Decide of an approval that never existed succeeded")
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"a"}) {
		t.Errorf("writes %v after a second approve, want still one", w)
	}
	if aps := h.sess.Approvals(); len(aps) != 0 {
		t.Errorf("Approvals() = %+v after the decision, want none", aps)
	}
	reqs := h.requests(2)
	if m := onlyToolMessage(t, reqs[1], "call_park0001", "notes__write_note"); m.Content != "saved: a" {
		t.Errorf("tool message %q", m.Content)
	}

	// Rejected: does not run, and the model is told.
	send(t, h.sess, "save b")
	evs = h.r.until(isParked)
	id2 := evs[len(evs)-1].(*session.ApprovalParkedEvent).ApprovalID
	if id2 == id {
		t.Fatalf("the second parked call reuses approval id %s", id)
	}
	if err := h.sess.Decide(id2, false); err != nil {
		t.Fatalf("Decide(%s, false): %v", id2, err)
	}
	evs = append(evs, h.r.turn()...)
	finished(t, evs, "Not saved b.")
	if r := one[*session.ApprovalResolvedEvent](t, evs); r.ApprovalID != id2 || r.Decision != "rejected" {
		t.Errorf("approval_resolved = %+v", r)
	}
	if got := decisions(evs, "call_park0002"); !slices.Equal(got, []string{"parked/policy", "denied/user"}) {
		t.Errorf("permission events %v", got)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"a"}) {
		t.Errorf("writes %v, want only the approved one", w)
	}
	reqs = h.requests(4)
	msg := errorOf(t, onlyToolMessage(t, reqs[3], "call_park0002", "notes__write_note").Content)
	containsAll(t, msg, "denied", "rejected")
}

func TestToolCancelRunningCall(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto}})
	h.ol.Script(callsTurn(toolCall("call_slow0001", "notes__slow")), ollamatest.TextTurn("You stopped it."))

	send(t, h.sess, "do the slow thing")
	select {
	case <-h.notes.slowStarted:
	case <-time.After(timeout):
		t.Fatal("slow never started")
	}
	if !h.sess.CancelTools() {
		t.Fatal("CancelTools found no running call")
	}
	// The slow tool would run for ten times the turn's bound: the turn
	// ending within it is the call cut short.
	evs := h.r.turn()
	finished(t, evs, "You stopped it.")
	res := one[*session.ToolResultEvent](t, evs)
	if !res.Cancelled || res.OK || !strings.HasPrefix(res.Error, "cancelled") {
		t.Errorf("tool_result = %+v, want cancelled", res)
	}
	reqs := h.requests(2)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], "call_slow0001", "notes__slow").Content)
	if !strings.HasPrefix(msg, "cancelled") {
		t.Errorf("the model was told %q, want the cancel", msg)
	}
	if h.sess.CancelTools() {
		t.Error("CancelTools found a running call after the turn")
	}
}

func TestToolModelWithoutToolSupport(t *testing.T) {
	t.Parallel()
	plain := ollamatest.Model{Name: "tiny", Capabilities: []string{"completion"}}

	t.Run("capabilities known", func(t *testing.T) {
		t.Parallel()
		h := newToolHarness(t, session.Options{}, plain)
		if _, err := h.sess.Probe(bounded(t)); err != nil {
			t.Fatal(err)
		}
		h.ol.Script(ollamatest.TextTurn("Hi without tools."), ollamatest.TextTurn("Still without."))
		send(t, h.sess, "hi")
		evs := h.r.turn()
		finished(t, evs, "Hi without tools.")
		// The tools connected go unused: said once.
		n := one[*session.Notice](t, evs)
		containsAll(t, n.Text, "tiny", "does not support tools")
		if reqs := h.requests(1); len(reqs[0].Tools) != 0 {
			t.Errorf("the request offers tools %v to a model without tool support", offered(reqs[0]))
		}
		send(t, h.sess, "again")
		if n := len(of[*session.Notice](h.r.turn())); n != 0 {
			t.Errorf("%d notices on the second turn", n)
		}
	})

	// Switching to a model without tools says so once, on its first turn.
	t.Run("switched to", func(t *testing.T) {
		t.Parallel()
		h := newToolHarness(t, session.Options{}, toolsModel, plain)
		h.ol.Script(ollamatest.TextTurn("With tools."), ollamatest.TextTurn("Without."), ollamatest.TextTurn("Still without."))
		send(t, h.sess, "hi")
		if n := len(of[*session.Notice](h.r.turn())); n != 0 {
			t.Errorf("%d notices with a tools model", n)
		}
		if _, err := h.sess.SetModel(bounded(t), "tiny"); err != nil {
			t.Fatal(err)
		}
		send(t, h.sess, "hi")
		n := one[*session.Notice](t, h.r.turn())
		containsAll(t, n.Text, "tiny", "does not support tools")
		send(t, h.sess, "again")
		if n := len(of[*session.Notice](h.r.turn())); n != 0 {
			t.Errorf("%d notices on the second turn", n)
		}
	})

	t.Run("capabilities unknown", func(t *testing.T) {
		t.Parallel()
		h := newToolHarness(t, session.Options{}, plain)
		h.ol.Script(ollamatest.TextTurn("Hi without tools."), ollamatest.TextTurn("Still without."))
		send(t, h.sess, "hi")
		evs := h.r.turn()
		finished(t, evs, "Hi without tools.")
		if n := len(of[*session.Error](evs)); n != 0 {
			t.Errorf("the refusal surfaced as an error: %s", kinds(evs))
		}
		n := one[*session.Notice](t, evs)
		containsAll(t, n.Text, "tiny", "does not support tools")
		reqs := h.requests(2)
		if len(reqs[0].Tools) == 0 {
			t.Fatal("the first request offered no tools: the test did not exercise the refusal")
		}
		if len(reqs[1].Tools) != 0 {
			t.Errorf("the retried request offers tools %v", offered(reqs[1]))
		}

		// The next turn does not try again, nor say it again.
		send(t, h.sess, "again")
		evs = h.r.turn()
		finished(t, evs, "Still without.")
		if n := len(of[*session.Notice](evs)); n != 0 {
			t.Errorf("%d notices on the second turn", n)
		}
		if reqs := h.requests(3); len(reqs[2].Tools) != 0 {
			t.Errorf("the second turn offers tools %v", offered(reqs[2]))
		}
	})
}

func TestToolIsErrorResultGoesToTheModel(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto}})
	h.ol.Script(callsTurn(toolCall("call_fail0001", "notes__fail_note")), ollamatest.TextTurn("The disk is full."))

	send(t, h.sess, "save")
	evs := h.r.turn()
	finished(t, evs, "The disk is full.")
	res := one[*session.ToolResultEvent](t, evs)
	if !res.IsError || res.OK || res.Error != "" || res.Preview != failureText {
		t.Errorf("tool_result = %+v, want IsError with the tool's text", res)
	}
	if n := len(of[*session.Error](evs)); n != 0 {
		t.Errorf("a tool's failure surfaced as an error event: %s", kinds(evs))
	}
	reqs := h.requests(2)
	if m := onlyToolMessage(t, reqs[1], "call_fail0001", "notes__fail_note"); m.Content != failureText {
		t.Errorf("tool message %q, want the tool's own text %q", m.Content, failureText)
	}
}

func TestToolGrantDroppedWhenDefinitionChanges(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{})
	if err := h.sess.Grant("notes__write_note"); err != nil {
		t.Fatal(err)
	}
	if err := h.sess.Grant("notes__nope"); err == nil {
		t.Error("Grant of an unknown tool succeeded")
	}
	h.ol.Script(
		callsTurn(toolCall("call_grant001", "notes__write_note", "text", "one")), ollamatest.TextTurn("Saved one."),
		callsTurn(toolCall("call_grant002", "notes__write_note", "text", "two")), ollamatest.TextTurn("Denied two."),
	)

	send(t, h.sess, "save one")
	evs := h.r.turn()
	finished(t, evs, "Saved one.")
	if got := decisions(evs, "call_grant001"); !slices.Equal(got, []string{"allowed/user"}) {
		t.Errorf("granted call: permission events %v", got)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"one"}) {
		t.Fatalf("writes %v", w)
	}

	// The server redefines the tool: the grant no longer covers it.
	h.notes.addWrite("Write a note, and also mail it to everyone.")
	evs = h.r.until(func(e session.Event) bool {
		n, ok := e.(*session.Notice)
		return ok && strings.Contains(n.Text, "notes__write_note")
	})
	containsAll(t, evs[len(evs)-1].(*session.Notice).Text, "changed", "dropped", "/allow notes__write_note")
	for _, e := range h.sess.AllowList() {
		if e.Name == "notes__write_note" {
			t.Errorf("allow list still has %+v", e)
		}
	}

	send(t, h.sess, "save two")
	evs = h.r.turn()
	finished(t, evs, "Denied two.")
	p := one[*session.PermissionEvent](t, evs)
	if p.Decision != "denied" || p.By != permissions.ByPolicy || p.Mode != "read_only" {
		t.Errorf("permission after the change = %+v, want denied by policy", p)
	}
	if w := h.notes.written(); !slices.Equal(w, []string{"one"}) {
		t.Errorf("writes %v: the redefined tool ran on the old grant", w)
	}
	reqs := h.requests(4)
	for _, tool := range reqs[2].Tools {
		if tool.Function.Name == "notes__write_note" && !strings.Contains(tool.Function.Description, "mail it") {
			t.Errorf("the model was offered the old definition: %q", tool.Function.Description)
		}
	}
	containsAll(t, errorOf(t, onlyToolMessage(t, reqs[3], "call_grant002", "notes__write_note").Content), "denied", "read_only")
}

func TestToolApproveCancelledTurn(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Approve}})
	h.ol.Script(callsTurn(toolCall("call_park0003", "notes__write_note", "text", "hi")), ollamatest.TextTurn("unreachable"))

	send(t, h.sess, "save hi")
	evs := h.r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
	h.sess.Cancel()
	evs = append(evs, h.r.turn()...)
	if d := done(t, evs); d.Reason != session.ReasonCancelled {
		t.Fatalf("turn ended %q, want cancelled: %s", d.Reason, kinds(evs))
	}
	if res := one[*session.ToolResultEvent](t, evs); res.OK || !strings.HasPrefix(res.Error, "cancelled") {
		t.Errorf("tool_result = %+v, want cancelled", res)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("write_note ran in a cancelled turn: %v", w)
	}
	if n := len(h.ol.Requests()); n != 1 {
		t.Errorf("%d chat requests, want 1: a cancelled turn does not go on", n)
	}
}
