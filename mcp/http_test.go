package mcp

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"

	"latch/mcp/mcptestutil"
)

// events collects a manager's events for assertions.
type events struct {
	mu  sync.Mutex
	all []Event
	ch  chan struct{}
}

func newEvents() *events { return &events{ch: make(chan struct{}, 1)} }

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	select {
	case e.ch <- struct{}{}:
	default:
	}
}

// waitState waits until server name reaches state.
func waitState(t *testing.T, m *Manager, name string, want State, d time.Duration) Status {
	t.Helper()
	deadline := time.Now().Add(mcptestutil.HangBound(d))
	for {
		st, err := m.Status(name)
		if err != nil {
			t.Fatal(err)
		}
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s: state %s (%s), want %s", name, st.State, st.Reason, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// echoServer is an in-process mcp-go server with an echo tool.
func echoServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("echo-srv", "1.0", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("message", mcpgo.Required()), mcpgo.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(req.GetString("message", "")), nil
		})
	return s
}

func TestHTTPAndSSEConnectAndCall(t *testing.T) {
	for _, tc := range []struct{ transport, path string }{{TransportHTTP, "/mcp"}, {TransportSSE, "/sse"}} {
		t.Run(tc.transport, func(t *testing.T) {
			srv := echoServer()
			var ts interface {
				Close()
			}
			var url string
			if tc.transport == TransportHTTP {
				h := servertest.NewTestStreamableHTTPServer(srv)
				ts, url = h, h.URL+tc.path
			} else {
				h := servertest.NewTestServer(srv)
				ts, url = h, h.URL+tc.path
			}
			defer ts.Close()
			ev := newEvents()
			m := New([]ServerConfig{{Name: "web", Transport: tc.transport, URL: url}}, Options{OnEvent: ev.add})
			defer m.CloseAll()
			m.Start() // how fast: BenchmarkConnectHTTP
			st := waitState(t, m, "web", StateConnected, 5*time.Second)
			if st.Tools != 1 || st.Summary() != "connected (1 tool)" {
				t.Fatalf("status %+v", st)
			}
			res, err := m.Call(context.Background(), "web__echo", map[string]any{"message": "hi"}, "c1")
			if err != nil || res.Text != "hi" {
				t.Fatalf("call: %v %+v", err, res)
			}
			// list_changed reaches us on this transport too.
			srv.AddTool(mcpgo.NewTool("late"), func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("late"), nil
			})
			deadline := time.Now().Add(mcptestutil.HangBound(5 * time.Second))
			for {
				if _, ok := m.Lookup("web__late"); ok {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("tools/list_changed never refreshed the list")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func TestTokenIsSentAsBearerAndRedacted(t *testing.T) {
	const secret = "SENTINEL-7f3a9c-token"
	var mu sync.Mutex
	var seen []string
	srv := echoServer()
	h := servertest.NewTestStreamableHTTPServer(srv, mcpserver.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		return ctx
	}))
	defer h.Close()
	m := New([]ServerConfig{{Name: "web", Transport: TransportHTTP, URL: h.URL + "/mcp", Token: secret,
		Headers: map[string]string{"Authorization": "Basic nope", "X-Org": "acme"}}}, Options{})
	defer m.CloseAll()
	m.Start()
	waitState(t, m, "web", StateConnected, 5*time.Second)
	res, err := m.Call(context.Background(), "web__echo", map[string]any{"message": "echo " + secret}, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, secret) || !strings.Contains(res.Text, redacted) {
		t.Fatalf("echoed token not redacted: %q", res.Text)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range seen {
		if a != "Bearer "+secret {
			t.Fatalf("Authorization %q, want the bearer token", a)
		}
	}
}
