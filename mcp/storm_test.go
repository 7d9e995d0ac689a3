package mcp

import (
	"context"
	"errors"
	"fmt"
	"latch/mcp/mcptestutil"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// stormServer is an in-process server that counts the tools/list requests
// it answers and remembers its client's session, to flood it.
type stormServer struct {
	*mcpserver.MCPServer
	lists   atomic.Int32
	mu      sync.Mutex
	session string
}

func newStormServer() *stormServer {
	ss := &stormServer{}
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeListTools(func(context.Context, any, *mcpgo.ListToolsRequest) { ss.lists.Add(1) })
	hooks.AddOnRegisterSession(func(_ context.Context, s mcpserver.ClientSession) {
		ss.mu.Lock()
		ss.session = s.SessionID()
		ss.mu.Unlock()
	})
	ss.MCPServer = mcpserver.NewMCPServer("storm", "1.0", mcpserver.WithToolCapabilities(true), mcpserver.WithHooks(hooks))
	ss.addTool("base")
	return ss
}

func (ss *stormServer) addTool(name string) {
	ss.AddTool(mcpgo.NewTool(name, mcpgo.WithDescription("tool "+name)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(name), nil
		})
}

// send delivers one notification to the client, waiting while the
// session's queue is full (mcp-go drops a notification then).
func (ss *stormServer) send(t *testing.T, method string, params map[string]any) {
	ss.mu.Lock()
	id := ss.session
	ss.mu.Unlock()
	for {
		err := ss.SendNotificationToSpecificClient(id, method, params)
		if err == nil {
			return
		}
		if !errors.Is(err, mcpserver.ErrNotificationChannelBlocked) {
			t.Fatalf("send %s: %v", method, err)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestListChangedStormIsCoalesced floods a server's connection with
// tools/list_changed and log notifications while its tool set changes a
// few times: tools/list requests are coalesced, a ToolsChanged event is
// sent only for a real change, and the heap stays as it was.
func TestListChangedStormIsCoalesced(t *testing.T) {
	const (
		notes   = 5000
		changes = 5
	)
	ss := newStormServer()
	var toolsChanged, statuses, logEvents atomic.Int32
	onEvent := func(e Event) {
		switch e.(type) {
		case ToolsChanged:
			toolsChanged.Add(1)
		case StatusChanged:
			statuses.Add(1)
		case LogLine:
			logEvents.Add(1)
		}
	}
	m := New([]ServerConfig{{Name: "storm", Transport: TransportInProcess, InProcess: ss.MCPServer}}, Options{OnEvent: onEvent})
	t.Cleanup(m.CloseAll)
	m.Start()
	waitReady(t, m, "storm", 5*time.Second)
	listsBefore, statusesBefore := ss.lists.Load(), statuses.Load()
	heapBefore := heapInUse()

	// Sample the heap while the storm lasts.
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	start := time.Now()
	logText := strings.Repeat("log line of a chatty server ", 8)
	for i := range notes {
		if i > 0 && i%(notes/changes) == 0 {
			ss.addTool(fmt.Sprintf("added%d", i/(notes/changes)))
		}
		ss.send(t, string(mcpgo.MethodNotificationToolsListChanged), nil)
		ss.send(t, string(mcpgo.MethodNotificationMessage), map[string]any{"level": "info", "logger": "storm", "data": logText})
		if i%50 == 49 {
			time.Sleep(10 * time.Millisecond) // a storm of a second or more
		}
	}
	ss.addTool("last")
	stormTook := time.Since(start)
	want := changes // added1 … added4 and last
	ok := mcptestutil.Eventually(mcptestutil.HangBound(10*time.Second), func() bool {
		tools, _ := m.ServerTools("storm")
		return len(tools) == want+1
	})
	close(stop)
	<-sampled
	if !ok {
		tools, _ := m.ServerTools("storm")
		t.Fatalf("after the storm the manager has %d tools, want %d", len(tools), want+1)
	}
	// Let the last refresher finish before counting.
	time.Sleep(600 * time.Millisecond)
	heapAfter := heapInUse()
	lists := ss.lists.Load() - listsBefore
	t.Logf("storm of %d list_changed + %d log messages took %s: %d tools/list, %d ToolsChanged, %d StatusChanged, %d LogLine events",
		notes, notes, stormTook, lists, toolsChanged.Load(), statuses.Load()-statusesBefore, logEvents.Load())
	t.Logf("heap: before %.1f MB, peak %.1f MB, after %.1f MB (after GC)",
		mb(heapBefore), mb(peak.Load()), mb(heapAfter))

	// One refresh per 200 ms at most, plus the one pending at the end.
	if limit := int32(stormTook/(200*time.Millisecond)) + 3; lists > limit || lists > 40 {
		t.Errorf("%d tools/list requests for %d notifications in %s, want ≤ %d (and ≤ 40)", lists, notes, stormTook, min(limit, 40))
	}
	if n := toolsChanged.Load(); n < 1 || n > int32(want) {
		t.Errorf("%d ToolsChanged events for %d changes of the tool set", n, want)
	}
	if n := statuses.Load() - statusesBefore; n > int32(want) {
		t.Errorf("%d StatusChanged events for %d changes of the tool set", n, want)
	}
	if lines, _ := m.Logs("storm"); len(lines) > logLines {
		t.Errorf("the log holds %d lines", len(lines))
	}
	if heapAfter > heapBefore+16<<20 {
		t.Errorf("heap grew from %.1f MB to %.1f MB", mb(heapBefore), mb(heapAfter))
	}
}

// TestListChangedWithoutChangeSendsNothing: a tools/list_changed that
// changes nothing sends no event; one that does sends one.
func TestListChangedWithoutChangeSendsNothing(t *testing.T) {
	ss := newStormServer()
	ev := newEvents()
	m, _ := startFake(t, Options{OnEvent: ev.add}, ServerConfig{Name: "storm", Transport: TransportInProcess, InProcess: ss.MCPServer})
	waitReady(t, m, "storm", 5*time.Second)
	n := len(eventList(ev))
	lists := ss.lists.Load()
	ss.send(t, string(mcpgo.MethodNotificationToolsListChanged), nil)
	if !mcptestutil.Eventually(mcptestutil.HangBound(5*time.Second), func() bool { return ss.lists.Load() > lists }) {
		t.Fatal("no refresh after tools/list_changed")
	}
	time.Sleep(600 * time.Millisecond)
	if extra := eventList(ev)[n:]; len(extra) != 0 {
		t.Fatalf("events for a list that did not change: %#v", extra)
	}
	ss.addTool("new")
	if !mcptestutil.Eventually(mcptestutil.HangBound(5*time.Second), func() bool {
		for _, e := range eventList(ev)[n:] {
			if tc, ok := e.(ToolsChanged); ok && tc.Tools == 2 {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no ToolsChanged for a new tool: %#v", eventList(ev)[n:])
	}
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// TestHugeLogMessageIsCut: the log keeps 500 lines, and each of a log
// notification's is cut, so a server sending huge ones can't fill memory.
func TestHugeLogMessageIsCut(t *testing.T) {
	ss := newStormServer()
	m, _ := startFake(t, Options{}, ServerConfig{Name: "storm", Transport: TransportInProcess, InProcess: ss.MCPServer})
	waitReady(t, m, "storm", 5*time.Second)
	huge := strings.Repeat("x", 1<<20)
	for range 3 {
		ss.send(t, string(mcpgo.MethodNotificationMessage), map[string]any{"level": "info", "data": huge})
	}
	var lines []string
	if !mcptestutil.Eventually(mcptestutil.HangBound(5*time.Second), func() bool {
		lines, _ = m.Logs("storm")
		n := 0
		for _, l := range lines {
			if strings.Contains(l, "xxxx") {
				n++
			}
		}
		return n == 3
	}) {
		t.Fatalf("log: %d lines", len(lines))
	}
	for _, l := range lines {
		if len(l) > 2100 {
			t.Errorf("a log line of %d bytes", len(l))
		}
	}
}
