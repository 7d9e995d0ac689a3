package session_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
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
	deadline := time.Now().Add(mcptestutil.HangBound(10 * time.Second))
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

// TestResourceUpdateStormShowsOnlyWatched floods a session with 5,000
// notifications/resources/updated for resources nobody watches, and for
// look-alikes of the one watched (other case, other escapes, a terminal
// escape), while the watched one changes now and then: only the watched
// resource's updates are published and logged, coalesced to a few, and
// the updates that follow wait their turn, none lost.
func TestResourceUpdateStormShowsOnlyWatched(t *testing.T) {
	const watched, other = "test://notes/readme.txt", "test://notes/big.txt"
	srv := mcptestutil.ResourceServer("")
	dir := t.TempDir()
	s := session.New(session.Options{ID: "20261201-000000-storm1", LogDir: dir,
		Servers: []session.ServerConfig{{Name: "res", Transport: "inprocess", InProcess: srv}}})
	defer s.Close()
	var mu sync.Mutex
	var updates []string // the URIs of the resource_updated events, in order
	sub := s.Subscribe()
	go func() { // the UI's reader
		for {
			evs, ok := sub.Next(context.Background())
			if !ok {
				return
			}
			for _, e := range evs {
				if u, ok := e.(*session.ResourceUpdatedEvent); ok {
					mu.Lock()
					updates = append(updates, u.Server+" "+u.URI)
					mu.Unlock()
				}
			}
		}
	}()
	seen := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(updates)
	}
	s.Start()
	s.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.WaitServers(ctx)
	for _, uri := range []string{watched, other} {
		if err := s.WatchResource(ctx, "res", uri); err != nil {
			t.Fatal(err)
		}
	}
	path := s.LogPathForTest()
	before, _ := os.Stat(path)

	lookalikes := []string{"test://notes/README.txt", "TEST://notes/readme.txt", "test://notes/readme%2Etxt",
		"test://notes/readme.txt\x1b[2J", "test://notes/readme.txt ", "test://notes/readme.txt#x"}
	start := time.Now()
	const notes = 5000
	for i := range notes {
		mcptestutil.UpdateResource(srv, fmt.Sprintf("test://notes/other-%d.txt", i))
		if i%100 == 0 {
			mcptestutil.UpdateResource(srv, watched)
			mcptestutil.UpdateResource(srv, lookalikes[(i/100)%len(lookalikes)])
		}
		if i%50 == 49 {
			time.Sleep(5 * time.Millisecond) // mcp-go drops what its queue cannot hold
		}
	}
	// Notifications are taken in order: once the other watched resource's
	// update is out, the storm's are through; updates that follow at once
	// wait their turn, and none is lost.
	// (mcp-go drops a notification its queue cannot hold: it is sent
	// again until seen.)
	mcptestutil.WaitFor(t, timeout, "the other watched resource's update", func() bool {
		if slices.Contains(seen(), "res "+other) {
			return true
		}
		mcptestutil.UpdateResource(srv, other)
		time.Sleep(100 * time.Millisecond)
		return false
	})
	storm := time.Since(start)
	mcptestutil.UpdateResource(srv, watched)
	mcptestutil.UpdateResource(srv, other)
	mcptestutil.WaitFor(t, timeout, "both updates after the storm", func() bool {
		got := seen()
		i := slices.Index(got, "res "+other)
		return slices.Contains(got[i+1:], "res "+watched) && slices.Contains(got[i+1:], "res "+other)
	})
	time.Sleep(session.ResourceUpdateIntervalForTest + 200*time.Millisecond)

	got := seen()
	for _, u := range got {
		if u != "res "+watched && u != "res "+other {
			t.Fatalf("an update of a resource not watched was published: %q", u)
		}
	}
	// One event at once, then at most one an interval while the storm
	// lasted, and the two after it.
	if limit := 4 + int(storm/session.ResourceUpdateIntervalForTest); len(got) > limit {
		t.Errorf("%d resource_updated events for %d updates of the watched resources in %s, want at most %d",
			len(got), notes/100+3, storm, limit)
	}
	after, _ := os.Stat(path)
	data, _ := os.ReadFile(path)
	logged := strings.Count(string(data), `"type":"resource_updated"`)
	t.Logf("%d updates of other resources + %d of the watched ones in %s: %d events, %d logged, the log grew %d bytes",
		notes, notes/100+3, storm, len(got), logged, after.Size()-before.Size())
	if logged != len(got) || strings.Contains(string(data), "other-") || strings.Contains(string(data), "README") {
		t.Errorf("the log holds %d resource_updated lines for %d events, or updates of resources not watched", logged, len(got))
	}
	if grew := after.Size() - before.Size(); grew > 4<<10 {
		t.Errorf("the log grew %d bytes", grew)
	}
}
