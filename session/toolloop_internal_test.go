package session

import (
	"context"
	"encoding/json"
	"latch/mcp/mcptestutil"
	"strconv"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/permissions"
)

// waitToolNamed waits until the session offers the tool called name.
func waitToolNamed(tb testing.TB, s *Session, name string) {
	tb.Helper()
	mcptestutil.WaitFor(tb, 15*time.Second, "tool "+name, func() bool {
		if s.servers == nil {
			return false
		}
		_, ok := s.servers.Lookup(name)
		return ok
	})
}

// callEvents runs one call through runToolCall and returns the tool message
// and the events it published, up to its tool_result.
func callEvents(t *testing.T, s *Session, call api.ToolCall) (api.Message, []Event) {
	t.Helper()
	sub := s.Subscribe()
	msg, answered := s.runToolCall(context.Background(), 1, call)
	if !answered {
		t.Fatalf("call %s got no answer", call.ID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var evs []Event
	for {
		batch, ok := sub.Next(ctx)
		if !ok {
			t.Fatalf("no tool_result; got %d events", len(evs))
		}
		for _, e := range batch {
			switch e.(type) {
			case *ToolCallEvent, *PermissionEvent, *ToolResultEvent:
				evs = append(evs, e)
			}
			if _, done := e.(*ToolResultEvent); done {
				return msg, evs
			}
		}
	}
}

func TestRunToolCallUnknownTool(t *testing.T) {
	t.Parallel()
	srv := mcpserver.NewMCPServer("notes", "1.0")
	ran := make(chan string, 4)
	srv.AddTool(mcpgo.NewTool("read_note", mcpgo.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			ran <- req.Params.Name
			return mcpgo.NewToolResultText("a note"), nil
		})
	// Auto mode: even the most permissive gate cannot make an unknown tool run.
	s := New(Options{Model: "qwen3:8b", Policy: permissions.Policy{Mode: permissions.Auto},
		Servers: []ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(s.Close)
	s.StartServers()
	waitToolNamed(t, s, "notes__read_note")

	for _, name := range []string{"notes__delete_all", "Notes__Read_Note", "read_note", ""} {
		args := api.NewToolCallFunctionArguments()
		args.Set("all", true)
		msg, evs := callEvents(t, s, api.ToolCall{ID: "call_unkn0001", Function: api.ToolCallFunction{Name: name, Arguments: args}})
		if msg.Role != "tool" || msg.ToolName != name || msg.ToolCallID != "call_unkn0001" {
			t.Errorf("%q: tool message %+v", name, msg)
		}
		var body map[string]string
		if err := json.Unmarshal([]byte(msg.Content), &body); err != nil || len(body) != 1 {
			t.Fatalf("%q: tool message %q is not {\"error\": …}", name, msg.Content)
		}
		want := "unknown tool " + strconv.Quote(name) + "; available tools: notes__read_note"
		if body["error"] != want {
			t.Errorf("%q: error %q, want %q", name, body["error"], want)
		}
		// The user sees the call and its failure; the gate is never asked.
		if len(evs) != 2 {
			t.Fatalf("%q: %d events %+v, want tool_call then tool_result", name, len(evs), evs)
		}
		if c, ok := evs[0].(*ToolCallEvent); !ok || c.Tool != name || c.CallID != "call_unkn0001" || c.Arguments["all"] != true {
			t.Errorf("%q: first event %+v, want its tool_call", name, evs[0])
		}
		if r, ok := evs[1].(*ToolResultEvent); !ok || r.OK || r.Error != want {
			t.Errorf("%q: tool_result %+v", name, evs[1])
		}
	}
	select {
	case got := <-ran:
		t.Errorf("a tool ran for an unknown name: %s", got)
	default:
	}

	// Without any server, the model is told there are no tools at all.
	bare := New(Options{Model: "qwen3:8b"})
	t.Cleanup(bare.Close)
	msg, _ := callEvents(t, bare, api.ToolCall{Function: api.ToolCallFunction{Name: "fs__read"}})
	if want := `{"error":"unknown tool \"fs__read\": no tools are available"}`; msg.Content != want {
		t.Errorf("without servers: %s, want %s", msg.Content, want)
	}
}

// TestRunToolCallParkedAtClose: a call parked when the session closes gets
// no answer (answered is false) and stays pending; one whose turn is
// cancelled is answered, and its approval is void.
func TestRunToolCallParkedAtClose(t *testing.T) {
	t.Parallel()
	srv := mcpserver.NewMCPServer("notes", "1.0")
	srv.AddTool(mcpgo.NewTool("write_note"),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("written"), nil
		})
	s := New(Options{Model: "qwen3:8b", Policy: permissions.Policy{Mode: permissions.Approve},
		Servers: []ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(s.Close)
	s.StartServers()
	waitToolNamed(t, s, "notes__write_note")

	type result struct {
		msg      api.Message
		answered bool
	}
	park := func(id string, closing bool) (result, []permissions.Approval) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := make(chan result, 1)
		go func() {
			msg, answered := s.runToolCall(ctx, 1, api.ToolCall{ID: id,
				Function: api.ToolCallFunction{Name: "notes__write_note", Arguments: api.NewToolCallFunctionArguments()}})
			out <- result{msg, answered}
		}()
		mcptestutil.WaitFor(t, 15*time.Second, id+" parked", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return len(s.parked) == 1
		})
		s.mu.Lock()
		s.closing = closing
		s.mu.Unlock()
		cancel()
		return <-out, s.Approvals()
	}

	r, pending := park("call_cancel01", false)
	if !r.answered || r.msg.Role != "tool" || r.msg.ToolCallID != "call_cancel01" {
		t.Errorf("cancelled turn: %+v, want an answer", r)
	}
	if len(pending) != 0 {
		t.Errorf("cancelled turn: pending %+v, want the approval void", pending)
	}

	r, pending = park("call_close001", true)
	if r.answered || r.msg.Role != "" {
		t.Errorf("closing: %+v, want no answer", r)
	}
	if len(pending) != 1 || pending[0].CallID != "call_close001" {
		t.Errorf("closing: pending %+v, want the call still parked", pending)
	}
}
