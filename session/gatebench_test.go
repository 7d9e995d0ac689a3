package session

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	latchmcp "latch/mcp"
	"latch/permissions"
)

// benchEchoServer is an in-process MCP server with one tool, echo, that
// returns its message: the cheapest real call, so that what latch adds on
// top of it shows.
func benchEchoServer() *mcpserver.MCPServer {
	srv := mcpserver.NewMCPServer("bench", "1.0")
	srv.AddTool(mcp.NewTool("echo", mcp.WithString("message", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	return srv
}

func benchServers() []ServerConfig {
	return []ServerConfig{{Name: "bench", Transport: latchmcp.TransportInProcess, InProcess: benchEchoServer()}}
}

// BenchmarkToolCallOverhead compares one call of an in-process echo tool
// made directly through the MCP manager ("manager") with the same call
// taken by the session's path ("session"): the gate's decision, the
// tool_call, permission and tool_result events (drained by a subscriber,
// as the UI does), the call itself and the tool message for the model. The
// target is at most 5% over "manager".
//
// The session's call carries its call id as the progress token (for the
// tool card's progress bar), which mcp-go pays for on both sides of the
// transport; "manager_progress" is the direct call with that token, so
// that session minus manager_progress is the price of the gate and the
// events alone.
func BenchmarkToolCallOverhead(b *testing.B) {
	direct := func(callID string) func(b *testing.B) {
		return func(b *testing.B) {
			m := latchmcp.New(benchServers(), latchmcp.Options{})
			b.Cleanup(m.CloseAll)
			m.Start()
			pollUntil(b, "bench__echo", func() bool { _, ok := m.Lookup("bench__echo"); return ok })
			ctx := context.Background()
			args := map[string]any{"message": "hello"}
			b.ReportAllocs()
			for b.Loop() {
				res, err := m.Call(ctx, "bench__echo", args, callID)
				if err != nil || res.Text != "hello" {
					b.Fatalf("Call = %+v, %v", res, err)
				}
			}
		}
	}
	b.Run("manager", direct(""))
	b.Run("manager_progress", direct("call_bench001"))
	b.Run("session", func(b *testing.B) {
		s := New(Options{Model: "qwen3:8b", Servers: benchServers(),
			Policy: permissions.Policy{ServerAllow: map[string][]string{"bench": {"echo"}}}})
		b.Cleanup(s.Close)
		s.StartServers()
		waitToolNamed(b, s, "bench__echo")
		sub := s.Subscribe()
		go func() { // the UI's reader
			for {
				if _, ok := sub.Next(context.Background()); !ok {
					return
				}
			}
		}()
		args := api.NewToolCallFunctionArguments()
		args.Set("message", "hello")
		call := api.ToolCall{ID: "call_bench001", Function: api.ToolCallFunction{Name: "bench__echo", Arguments: args}}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if msg := s.runToolCall(ctx, 1, call); msg.Content != "hello" {
				b.Fatalf("tool message %+v", msg)
			}
		}
	})
}
