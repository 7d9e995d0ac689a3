package mcp

import (
	"context"
	"fmt"
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
	all := []string{"roots", "elicitation", "sampling"}
	for _, tc := range []struct {
		transport  string
		roots      []string
		handlers   bool // Elicit and Sample are set
		answers    []string
		notOffered []string
	}{
		{TransportInProcess, []string{root}, false, []string{"roots"}, nil},
		{TransportHTTP, []string{root}, false, []string{"roots"}, nil},
		{TransportSSE, []string{root}, false, nil, []string{"roots"}},
		{TransportHTTP, nil, false, nil, nil},
		{TransportSSE, nil, false, nil, nil},
		{TransportInProcess, []string{root}, true, all, nil},
		{TransportHTTP, []string{root}, true, all, nil},
		{TransportSSE, []string{root}, true, nil, all},
		{TransportHTTP, nil, true, []string{"elicitation", "sampling"}, nil},
	} {
		t.Run(fmt.Sprintf("%s roots=%d handlers=%v", tc.transport, len(tc.roots), tc.handlers), func(t *testing.T) {
			var mu sync.Mutex
			var told *mcpgo.ClientCapabilities
			hooks := &mcpserver.Hooks{}
			hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
				mu.Lock()
				c := req.Params.Capabilities
				told = &c
				mu.Unlock()
			})
			// On the stateless era, each request's _meta tells them.
			hooks.AddBeforeListTools(func(ctx context.Context, _ any, _ *mcpgo.ListToolsRequest) {
				if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
					mu.Lock()
					told = info.ClientCapabilities
					mu.Unlock()
				}
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
			o := Options{Roots: tc.roots}
			if tc.handlers {
				o.Elicit = func(context.Context, string, ElicitRequest) (ElicitResponse, error) { return ElicitResponse{}, nil }
				o.Sample = func(context.Context, string, SampleRequest) (SampleResponse, error) { return SampleResponse{}, nil }
			}
			m := New([]ServerConfig{cfg}, o)
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
				t.Fatal("the server saw no initialize and no _meta")
			}
			if declared := told.Roots != nil; declared != slices.Contains(tc.answers, "roots") {
				t.Errorf("roots declared: %v, but latch answers %v", declared, tc.answers)
			}
			if declared := told.Elicitation != nil; declared != slices.Contains(tc.answers, "elicitation") {
				t.Errorf("elicitation declared: %v, but latch answers %v", declared, tc.answers)
			}
			if declared := told.Sampling != nil; declared != slices.Contains(tc.answers, "sampling") {
				t.Errorf("sampling declared: %v, but latch answers %v", declared, tc.answers)
			}
			if told.Experimental != nil || told.Tasks != nil {
				t.Errorf("declared what latch does not answer: %+v", *told)
			}
		})
	}
}
