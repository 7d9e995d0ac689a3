package session_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/session"
)

// TestStormKeepsTheLogSmall floods a logged session's server with
// tools/list_changed and log notifications while its tool set changes
// five times: the session log gains a line or two per real change, not
// per notification, and the heap comes back.
func TestStormKeepsTheLogSmall(t *testing.T) {
	srv := mcpserver.NewMCPServer("storm", "1.0", mcpserver.WithToolCapabilities(true), mcpserver.WithLogging())
	add := func(name string) {
		srv.AddTool(mcpgo.NewTool(name), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(name), nil
		})
	}
	add("base")
	dir := t.TempDir()
	s := session.New(session.Options{ID: "20261201-000000-storm0", LogDir: dir,
		Servers: []session.ServerConfig{{Name: "storm", Transport: "inprocess", InProcess: srv}}})
	defer s.Close()
	sub := s.Subscribe()
	go func() { // the UI's reader
		for {
			if _, ok := sub.Next(context.Background()); !ok {
				return
			}
		}
	}()
	s.Start()
	s.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s.WaitServers(ctx)
	cancel()
	path := dir + "/20261201-000000-storm0.jsonl"
	before, _ := os.Stat(path)
	var ms runtime.MemStats
	var peak uint64
	const notes = 5000
	for i := range notes {
		if i > 0 && i%1000 == 0 {
			add(fmt.Sprintf("added%d", i/1000))
		}
		srv.SendNotificationToAllClients(string(mcpgo.MethodNotificationToolsListChanged), nil)
		srv.SendNotificationToAllClients(string(mcpgo.MethodNotificationMessage),
			map[string]any{"level": "info", "data": strings.Repeat("chatty ", 20)})
		if i%50 == 49 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			time.Sleep(5 * time.Millisecond)
		}
	}
	add("last")
	deadline := time.Now().Add(10 * time.Second)
	for {
		tools, _ := s.Tools("storm")
		if len(tools) == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session has %d tools after the storm, want 6", len(tools))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	after, _ := os.Stat(path)
	grew := after.Size() - before.Size()
	data, _ := os.ReadFile(path)
	changed := strings.Count(string(data), `"type":"tools_changed"`)
	t.Logf("%d list_changed + %d log notifications: the log grew %d bytes (%d tools_changed lines); heap peak %.1f MB",
		notes, notes, grew, changed, float64(peak)/(1<<20))
	if changed > 5 || grew > 16<<10 {
		t.Fatalf("the log grew %d bytes with %d tools_changed lines for 5 changes", grew, changed)
	}
}
