package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
)

func TestRootURI(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/me/my project": "file:///home/me/my%20project",
		"/srv/données/日本":     "file:///srv/donn%C3%A9es/%E6%97%A5%E6%9C%AC",
		"/a/b/../c/":          "file:///a/c",
		"/tmp/100%/x#y?z":     "file:///tmp/100%25/x%23y%3Fz",
	} {
		if got := RootURI(dir); got != want {
			t.Errorf("RootURI(%q) = %q, want %q", dir, got, want)
		}
	}
}

// rootsServer is an in-process server whose tool "roots" asks latch for
// its roots (roots/list), and which records roots/list_changed and
// logging/setLevel.
type rootsServer struct {
	srv     *mcpserver.MCPServer
	mu      sync.Mutex
	changed int
	levels  []string
}

func newRootsServer() *rootsServer {
	rs := &rootsServer{}
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeSetLevel(func(_ context.Context, _ any, r *mcpgo.SetLevelRequest) {
		rs.mu.Lock()
		rs.levels = append(rs.levels, string(r.Params.Level))
		rs.mu.Unlock()
	})
	// On the stateless era the level comes in each request's _meta.
	hooks.AddBeforeCallTool(func(ctx context.Context, _ any, _ *mcpgo.CallToolRequest) {
		if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern && info.LogLevel != "" {
			rs.mu.Lock()
			rs.levels = append(rs.levels, string(info.LogLevel))
			rs.mu.Unlock()
		}
	})
	rs.srv = mcpserver.NewMCPServer("roots", "1", mcpserver.WithLogging(), mcpserver.WithHooks(hooks))
	rs.srv.AddNotificationHandler(string(mcpgo.MethodNotificationRootsListChanged), func(context.Context, mcpgo.JSONRPCNotification) {
		rs.mu.Lock()
		rs.changed++
		rs.mu.Unlock()
	})
	rs.srv.AddTool(mcpgo.NewTool("roots"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		res, err := rs.srv.RequestRoots(ctx, mcpgo.ListRootsRequest{})
		if err != nil {
			return mcpgo.NewToolResultError(err.Error()), nil
		}
		b, _ := json.Marshal(res.Roots)
		return mcpgo.NewToolResultText(string(b)), nil
	})
	return rs
}

func (rs *rootsServer) counts() (int, []string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.changed, slices.Clone(rs.levels)
}

// The configured roots come back from roots/list as file:// URIs named by
// their base name; /roots add tells the server (roots/list_changed) and
// the next roots/list has the new root; a remove takes it away again.
func TestRootsInProcess(t *testing.T) {
	a := filepath.Join(t.TempDir(), "my project")
	b := filepath.Join(t.TempDir(), "zwei")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	rs := newRootsServer()
	m, _ := startFake(t, Options{Roots: []string{a}}, ServerConfig{Name: "r", Transport: TransportInProcess, InProcess: rs.srv})
	waitState(t, m, "r", StateConnected, 10*time.Second)
	mcptestutil.WaitFor(t, 5*time.Second, "r__roots", func() bool { _, ok := m.Lookup("r__roots"); return ok })
	roots := func() []mcpgo.Root {
		t.Helper()
		res, err := m.Call(context.Background(), "r__roots", nil, "")
		if err != nil || res.IsError {
			t.Fatalf("roots: %v %+v", err, res)
		}
		var out []mcpgo.Root
		if err := json.Unmarshal([]byte(res.Text), &out); err != nil {
			t.Fatalf("%q: %v", res.Text, err)
		}
		return out
	}
	if got := roots(); len(got) != 1 || got[0].URI != RootURI(a) || got[0].Name != "my project" {
		t.Fatalf("roots/list: %+v", got)
	}
	added, n, err := m.AddRoot(b)
	if err != nil || added != b || n != 1 {
		t.Fatalf("AddRoot: %q %d %v", added, n, err)
	}
	if !mcptestutil.Eventually(mcptestutil.HangBound(5*time.Second), func() bool { c, _ := rs.counts(); return c == 1 }) {
		t.Error("the server got no roots/list_changed")
	}
	if got := roots(); len(got) != 2 || got[1].URI != RootURI(b) || got[1].Name != "zwei" {
		t.Errorf("roots/list after add: %+v", got)
	}
	if _, _, err := m.AddRoot(b); err == nil || !strings.Contains(err.Error(), "already a root") {
		t.Errorf("add twice: %v", err)
	}
	if _, _, err := m.AddRoot(filepath.Join(b, "nope")); err == nil || !strings.Contains(err.Error(), "directory not found") {
		t.Errorf("add missing: %v", err)
	}
	if _, _, err := m.RemoveRoot(a); err != nil {
		t.Fatal(err)
	}
	if got := roots(); len(got) != 1 || got[0].URI != RootURI(b) {
		t.Errorf("roots/list after remove: %+v", got)
	}
	if got := m.Roots(); !slices.Equal(got, []string{b}) {
		t.Errorf("Roots: %v", got)
	}
}

// Without configured roots, the working directory is the root.
// TestRootsNotOfferedUnasked: without configured roots, latch tells no
// server any (server-filesystem would otherwise swap its own folders for
// the working directory, unseen), and does not declare the capability.
func TestRootsNotOfferedUnasked(t *testing.T) {
	if got := New(nil, Options{}).Roots(); len(got) != 0 {
		t.Errorf("Roots: %v, want none", got)
	}
	rs := newRootsServer()
	m, _ := startFake(t, Options{}, ServerConfig{Name: "r", Transport: TransportInProcess, InProcess: rs.srv})
	waitState(t, m, "r", StateConnected, 10*time.Second)
	m.servers["r"].mu.Lock()
	offered := m.servers["r"].conn.roots
	m.servers["r"].mu.Unlock()
	if offered {
		t.Error("the roots capability was declared with no roots configured")
	}
}

// /logs SERVER LEVEL sends logging/setLevel; an unknown level and a server
// without logging are refused.
func TestSetLogLevel(t *testing.T) {
	for _, era := range []string{ProtocolLegacy, ProtocolModern} {
		t.Run(era, func(t *testing.T) { testSetLogLevel(t, era) })
	}
}

// testSetLogLevel: the level reaches the server, by logging/setLevel on
// the handshake era, with the next request on the stateless one.
func testSetLogLevel(t *testing.T, era string) {
	rs := newRootsServer()
	plain := mcpserver.NewMCPServer("plain", "1")
	plain.AddTool(mcpgo.NewTool("x"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return mcpgo.NewToolResultText("x"), nil
	})
	m, _ := startFake(t, Options{},
		ServerConfig{Name: "r", Transport: TransportInProcess, InProcess: rs.srv, Protocol: era},
		ServerConfig{Name: "plain", Transport: TransportInProcess, InProcess: plain, Protocol: era})
	waitState(t, m, "r", StateConnected, 10*time.Second)
	waitState(t, m, "plain", StateConnected, 10*time.Second)
	if err := m.SetLogLevel("r", "debug"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Call(context.Background(), "r__roots", nil, ""); err != nil { // any request
		t.Fatal(err)
	}
	if _, levels := rs.counts(); !slices.Equal(levels, []string{"debug"}) {
		t.Errorf("levels the server got: %v", levels)
	}
	if err := m.SetLogLevel("r", "loud"); err == nil || !strings.Contains(err.Error(), `unknown log level "loud"`) {
		t.Errorf("unknown level: %v", err)
	}
	if err := m.SetLogLevel("plain", "info"); err == nil || !strings.Contains(err.Error(), "does not offer logging") {
		t.Errorf("server without logging: %v", err)
	}
}
