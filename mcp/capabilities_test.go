package mcp

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
)

// TestDeclaredCapabilities: latch declares a client capability only where
// it answers it, and says in the status what it declared, what the server
// offers, and what legacy SSE could not carry. The server's side of the
// handshake is what is checked: what it was told.
func TestDeclaredCapabilities(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		transport  string
		roots      []string
		answers    []string
		notOffered []string
	}{
		{TransportInProcess, []string{root}, []string{"roots"}, nil},
		{TransportHTTP, []string{root}, []string{"roots"}, nil},
		{TransportSSE, []string{root}, nil, []string{"roots"}},
		{TransportHTTP, nil, nil, nil},
		{TransportSSE, nil, nil, nil},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			var mu sync.Mutex
			var told *mcpgo.ClientCapabilities
			hooks := &mcpserver.Hooks{}
			hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
				mu.Lock()
				c := req.Params.Capabilities
				told = &c
				mu.Unlock()
			})
			srv := mcpserver.NewMCPServer("caps", "1.0", mcpserver.WithToolCapabilities(true),
				mcpserver.WithPromptCapabilities(true), mcpserver.WithLogging(), mcpserver.WithHooks(hooks))
			srv.AddTool(mcpgo.NewTool("echo"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("ok"), nil
			})
			cfg := ServerConfig{Name: "caps", Transport: tc.transport}
			switch tc.transport {
			case TransportInProcess:
				cfg.InProcess = srv
			case TransportHTTP:
				h := servertest.NewTestStreamableHTTPServer(srv)
				t.Cleanup(h.Close)
				cfg.URL = h.URL + "/mcp"
			case TransportSSE:
				h := servertest.NewTestServer(srv)
				t.Cleanup(h.Close)
				cfg.URL = h.URL + "/sse"
			}
			m := New([]ServerConfig{cfg}, Options{Roots: tc.roots})
			t.Cleanup(m.CloseAll)
			m.Start()
			st := waitState(t, m, "caps", StateConnected, 5*time.Second)
			if want := []string{"tools", "prompts", "logging"}; !slices.Equal(st.Offers, want) {
				t.Errorf("offers %v, want %v", st.Offers, want)
			}
			if !slices.Equal(st.Answers, tc.answers) || !slices.Equal(st.NotOffered, tc.notOffered) {
				t.Errorf("answers %v, not offered %v; want %v, %v", st.Answers, st.NotOffered, tc.answers, tc.notOffered)
			}
			mu.Lock()
			defer mu.Unlock()
			if told == nil {
				t.Fatal("the server saw no initialize")
			}
			if declared := told.Roots != nil; declared != slices.Contains(tc.answers, "roots") {
				t.Errorf("roots declared: %v, but latch answers %v", declared, tc.answers)
			}
			if told.Sampling != nil || told.Elicitation != nil || told.Experimental != nil {
				t.Errorf("declared what latch does not answer: %+v", *told)
			}
		})
	}
}
