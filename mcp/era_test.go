package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"latch/mcp/mcptestutil"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
)

// TestEraChosenPerServer connects the fake stdio server speaking both eras,
// only the handshake era (refusing the probe, or ignoring it), each with
// protocol auto or pinned, and checks the era /servers shows and that a
// call works on it.
func TestEraChosenPerServer(t *testing.T) {
	for _, tc := range []struct {
		name, legacy, protocol, want string
	}{
		{"both eras, auto", "", "", ProtocolModern},
		{"both eras, pinned legacy", "", ProtocolLegacy, ProtocolLegacy},
		{"both eras, pinned stateless", "", ProtocolModern, ProtocolModern},
		{"refuses the probe", "answer", ProtocolAuto, ProtocolLegacy},
		// mcp-go's own probe would wait 5 s: past this connect timeout.
		{"ignores the probe", "ignore", "", ProtocolLegacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fakeServer(t, "fake")
			if tc.legacy != "" {
				cfg.Args = []string{"-legacy", tc.legacy}
			}
			cfg.Protocol, cfg.ConnectTimeout = tc.protocol, 3*time.Second
			m, _ := startFake(t, Options{}, cfg)
			st := waitReady(t, m, "fake", 10*time.Second)
			if st.ProtocolVersion != tc.want {
				t.Fatalf("protocol %q, want %q", st.ProtocolVersion, tc.want)
			}
			if res := mustCall(t, m, "fake__echo", map[string]any{"message": "era"}); res.Text != "era" {
				t.Fatalf("echo: %q", res.Text)
			}
		})
	}
}

// TestEraPinnedStatelessRefusesALegacyServer: a server pinned to
// 2026-07-28 that speaks only the handshake era fails, saying why.
func TestEraPinnedStatelessRefusesALegacyServer(t *testing.T) {
	cfg := fakeServer(t, "old", "-legacy", "answer")
	cfg.Protocol = ProtocolModern
	m, _ := startFake(t, Options{}, cfg)
	st := waitState(t, m, "old", StateFailed, 10*time.Second)
	if !strings.Contains(st.LastError, "does not speak protocol 2026-07-28") {
		t.Fatalf("reason %q", st.LastError)
	}
}

// TestEraListChangedOnBothEras: a tool added by an in-process server and
// by a streamable HTTP one reaches the tool list on either era (the
// stateless one hears it on its subscriptions/listen stream).
func TestEraListChangedOnBothEras(t *testing.T) {
	for _, transport := range []string{TransportInProcess, TransportHTTP} {
		for _, era := range []string{ProtocolLegacy, ProtocolModern} {
			t.Run(transport+" "+era, func(t *testing.T) {
				srv := echoServer()
				cfg := ServerConfig{Name: "web", Transport: transport, InProcess: srv, Protocol: era}
				if transport == TransportHTTP {
					h := servertest.NewTestStreamableHTTPServer(srv)
					t.Cleanup(h.Close)
					cfg.InProcess, cfg.URL = nil, h.URL+"/mcp"
				}
				m, _ := startFake(t, Options{}, cfg)
				st := waitReady(t, m, "web", 10*time.Second)
				if st.ProtocolVersion != era {
					t.Fatalf("protocol %q, want %q", st.ProtocolVersion, era)
				}
				srv.AddTool(mcpgo.NewTool("late"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					return mcpgo.NewToolResultText("late"), nil
				})
				if !mcptestutil.Eventually(5*time.Second, func() bool { _, ok := m.Lookup("web__late"); return ok }) {
					t.Fatal("the new tool never reached the list")
				}
				if res := mustCall(t, m, "web__late", nil); res.Text != "late" {
					t.Fatalf("late: %q", res.Text)
				}
			})
		}
	}
}

// TestEraResourceWatchOnBothEras: a watched resource's update and a change
// of the resource list reach latch on either era (the stateless one by a
// subscriptions/listen stream reopened with the watched URI).
func TestEraResourceWatchOnBothEras(t *testing.T) {
	for _, era := range []string{ProtocolLegacy, ProtocolModern} {
		t.Run(era, func(t *testing.T) {
			srv := mcptestutil.ResourceServer("")
			m, ev := startFake(t, Options{}, ServerConfig{Name: "res", Transport: TransportInProcess, InProcess: srv, Protocol: era})
			if st := waitReady(t, m, "res", 10*time.Second); st.ProtocolVersion != era {
				t.Fatalf("protocol %q, want %q", st.ProtocolVersion, era)
			}
			if err := m.Subscribe(context.Background(), "res", "test://notes/readme.txt"); err != nil {
				t.Fatal(err)
			}
			// Until the server has the subscription, an update is lost:
			// send it again until one arrives.
			mcptestutil.WaitFor(t, 5*time.Second, "the update", func() bool {
				mcptestutil.UpdateResource(srv, "test://notes/readme.txt")
				time.Sleep(20 * time.Millisecond)
				return strings.Contains(strings.Join(resourceEvents(ev), "|"), "updated res test://notes/readme.txt")
			})
			srv.DeleteResources("test://broken")
			mcptestutil.WaitFor(t, 5*time.Second, "the list change", func() bool {
				return strings.Contains(strings.Join(resourceEvents(ev), "|"), "changed res")
			})
		})
	}
}

// TestEraListenNamesWatchesOverHTTP: over streamable HTTP on the stateless
// era, a watch reopens the subscriptions/listen stream with the URI, and
// the resource list's changes arrive on it. (mcp-go's server cannot send
// a resources/updated to such a stream: it keeps its listening sessions
// to itself and filters the update out of a broadcast.)
func TestEraListenNamesWatchesOverHTTP(t *testing.T) {
	srv := mcptestutil.ResourceServer("")
	var mu sync.Mutex
	var filters []mcpgo.SubscriptionFilter
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcpgo.MCPMethod, msg any) {
		if req, ok := msg.(*mcpgo.SubscriptionsListenRequest); ok && method == mcpgo.MethodSubscriptionsListen {
			mu.Lock()
			filters = append(filters, req.Params.Notifications)
			mu.Unlock()
		}
	})
	mcpserver.WithHooks(hooks)(srv)
	h := servertest.NewTestStreamableHTTPServer(srv)
	t.Cleanup(h.Close)
	m, ev := startFake(t, Options{}, ServerConfig{Name: "res", Transport: TransportHTTP, URL: h.URL + "/mcp"})
	if st := waitReady(t, m, "res", 10*time.Second); st.ProtocolVersion != ProtocolModern {
		t.Fatalf("protocol %q", st.ProtocolVersion)
	}
	if err := m.Subscribe(context.Background(), "res", "test://notes/readme.txt"); err != nil {
		t.Fatal(err)
	}
	mcptestutil.WaitFor(t, 5*time.Second, "a listen naming the watch", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, f := range filters {
			if slices.Equal(f.ResourceSubscriptions, []string{"test://notes/readme.txt"}) && f.ResourcesListChanged && f.ToolsListChanged {
				return true
			}
		}
		return false
	})
	n := 0
	mcptestutil.WaitFor(t, 5*time.Second, "the list change", func() bool {
		n++
		srv.AddResource(mcpgo.NewResource(fmt.Sprintf("test://new/%d", n), "new"), nil)
		time.Sleep(20 * time.Millisecond)
		return strings.Contains(strings.Join(resourceEvents(ev), "|"), "changed res")
	})
}

// TestEraInputsOnBothEras: a tool that needs a form, a sample and the
// roots gets them through latch's handlers, with the same result on either
// era: on 2026-07-28 they come inside the call's result (input_required)
// and the call is repeated with the answers.
func TestEraInputsOnBothEras(t *testing.T) {
	root := t.TempDir()
	results := map[string]string{}
	for _, era := range []string{ProtocolLegacy, ProtocolModern} {
		t.Run(era, func(t *testing.T) {
			var mu sync.Mutex
			var forms, samples, calls int
			srv := mcptestutil.InputServer()
			hooks := &mcpserver.Hooks{}
			hooks.AddBeforeCallTool(func(context.Context, any, *mcpgo.CallToolRequest) {
				mu.Lock()
				calls++
				mu.Unlock()
			})
			mcpserver.WithHooks(hooks)(srv)
			m, _ := startFake(t, Options{
				Roots: []string{root},
				Elicit: func(_ context.Context, server string, r ElicitRequest) (ElicitResponse, error) {
					mu.Lock()
					forms++
					mu.Unlock()
					if server != "in" || r.Mode != ElicitForm || r.Message != "Your name?" {
						t.Errorf("form from %s: %+v", server, r)
					}
					return ElicitResponse{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
				},
				Sample: func(_ context.Context, server string, r SampleRequest) (SampleResponse, error) {
					mu.Lock()
					samples++
					mu.Unlock()
					return SampleResponse{Text: "hi from the model", Model: "qwen3:8b"}, nil
				},
			}, ServerConfig{Name: "in", Transport: TransportInProcess, InProcess: srv, Protocol: era})
			if st := waitReady(t, m, "in", 10*time.Second); st.ProtocolVersion != era {
				t.Fatalf("protocol %q, want %q", st.ProtocolVersion, era)
			}
			res := mustCall(t, m, "in__ask", nil)
			results[era] = res.Text
			mu.Lock()
			defer mu.Unlock()
			if forms != 1 || samples != 1 {
				t.Errorf("%d forms, %d samples asked of the person and the model, want 1 each", forms, samples)
			}
			// 2026-07-28: the call, then the call with the answers; before,
			// one call and the server's own requests.
			if want := map[string]int{ProtocolLegacy: 1, ProtocolModern: 2}[era]; calls != want {
				t.Errorf("%d tools/call requests, want %d", calls, want)
			}
		})
	}
	want := `{"form":{"action":"accept","content":{"name":"Ada"}},"roots":["` + RootURI(root) + `"],"sample":"hi from the model"}`
	for era, got := range results {
		if got != want {
			t.Errorf("%s: %s, want %s", era, got, want)
		}
	}
}
