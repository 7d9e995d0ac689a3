package gateway_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// waitServer is an upstream server whose "wait" calls run until release
// or their cancellation, and say which ended them.
type waitServer struct {
	srv       *server.MCPServer
	running   atomic.Int32
	cancelled atomic.Int32
	mu        sync.Mutex
	gate      chan struct{}
}

// release ends the calls running, as their upstream's answer.
func (w *waitServer) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.gate)
	w.gate = make(chan struct{})
}

func newWaitServer() *waitServer {
	w := &waitServer{srv: server.NewMCPServer("wait", "1"), gate: make(chan struct{})}
	w.srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		w.mu.Lock()
		gate := w.gate
		w.mu.Unlock()
		w.running.Add(1)
		defer w.running.Add(-1)
		select {
		case <-gate:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			w.cancelled.Add(1)
			return mcp.NewToolResultText("cancelled"), nil
		}
		return mcp.NewToolResultText("released"), nil
	})
	return w
}

// waitCall is a call of up__wait with id of the 2026-07-28 form, with a
// progress token (so that mcp-go's server, not latch's front, runs it)
// or without one (a plain call, latch's front).
func waitCall(id int, progress bool) string {
	meta := meta2026
	if progress {
		meta = `"_meta":{"progressToken":"p",` + meta2026[len(`"_meta":{`):]
	}
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{` + meta + `"name":"up__wait"}}`
}

// cancelOf is a notifications/cancelled of the 2026-07-28 form for id.
func cancelOf(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{` + meta2026 + `"requestId":` + id + `}}`
}

// open2025 is the headers of a new 2025-11-25 session of tok's.
func open2025(t *testing.T, url, tok string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(0))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize",`+
		`"params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	h := map[string]string{"Authorization": "Bearer " + tok, "Mcp-Session-Id": res.Header.Get("Mcp-Session-Id"),
		"Mcp-Protocol-Version": "2025-11-25", "Mcp-Method": ""}
	if h["Mcp-Session-Id"] == "" {
		t.Fatalf("initialize: %d, no session", res.StatusCode)
	}
	if got := postCall(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); got.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", got.status, got.body)
	}
	return h
}

// A client's notifications/cancelled over HTTP reaches its own call of
// that id and no other client's. Ids are each client's own (every client
// counts from 0 or 1), and mcp-go keys a 2026-07-28 request by its id
// alone: whether mcp-go runs the call (a progress token) or latch's front
// does (a plain call), intern's call with id 1 outlives ci-bot's cancel
// of id 1 and the shared token's, and intern's own cancel ends it. A
// 2025 session's cancel reaches its session's calls alone.
func TestCancelReachesOnlyTheSendersCalls(t *testing.T) {
	for _, c := range []struct {
		name     string
		progress bool
		session  bool
	}{{"2026 progress token", true, false}, {"2026 plain", false, false}, {"2025 sessions", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			up := newWaitServer()
			r := startRigHTTP(t, gateway.Options{}, false, session.Options{Policy: permissions.Policy{Mode: permissions.Auto,
				ServerAllow: map[string][]string{"up": {"wait"}}}}, gateway.HTTPOptions{Token: token, Clients: namedClients()},
				session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
			// as is the headers of tok's requests, and the bodies of its
			// call and its cancel.
			as := func(tok string) (h map[string]string, call func(id int) string, cancel func(id string) string) {
				if !c.session {
					return map[string]string{"Authorization": "Bearer " + tok},
						func(id int) string { return waitCall(id, c.progress) }, cancelOf
				}
				return open2025(t, r.url, tok), func(id int) string {
						return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"up__wait"}}`
					}, func(id string) string {
						return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
					}
			}
			with := func(h map[string]string, more map[string]string) map[string]string {
				out := map[string]string{}
				for k, v := range h {
					out[k] = v
				}
				for k, v := range more {
					if _, set := out[k]; !set {
						out[k] = v
					}
				}
				return out
			}
			intern, internCall, internCancel := as(internToken)
			wait := with(intern, map[string]string{"Mcp-Name": "up__wait"})
			answers := make(chan httpAnswer, 1)
			go func() { answers <- postCall(t, r.url, internCall(1), wait) }()
			mcptestutil.WaitFor(t, 0, "intern's call to start", func() bool { return up.running.Load() == 1 })
			for _, tok := range []string{ciToken, token} {
				h, _, cancel := as(tok)
				h = with(h, map[string]string{"Mcp-Method": "notifications/cancelled"})
				if got := postCall(t, r.url, cancel("1"), h); got.status != http.StatusAccepted {
					t.Fatalf("another client's cancel: %d %s", got.status, got.body)
				}
				// The method escaped, under another method's header: still
				// a cancel to mcp-go.
				escaped := strings.Replace(cancel("1"), "notifications/", `notifications\u002f`, 1)
				if got := postCall(t, r.url, escaped, with(map[string]string{"Mcp-Method": "tools/call"}, h)); got.status != http.StatusAccepted {
					t.Fatalf("another client's cancel, escaped: %d %s", got.status, got.body)
				}
			}
			up.release()
			if got := <-answers; got.status != http.StatusOK || !strings.Contains(got.body, "released") {
				t.Fatalf("intern's call after others cancelled its id: %d %s; want it run to its end", got.status, got.body)
			}
			if n := up.cancelled.Load(); n != 0 {
				t.Fatalf("%d upstream calls cancelled", n)
			}

			// intern's own cancel ends its call.
			defer up.release()
			go func() { answers <- postCall(t, r.url, internCall(2), wait) }()
			mcptestutil.WaitFor(t, 0, "intern's second call to start", func() bool { return up.running.Load() == 1 })
			own := with(intern, map[string]string{"Mcp-Method": "notifications/cancelled"})
			if got := postCall(t, r.url, internCancel("2"), own); got.status != http.StatusAccepted {
				t.Fatalf("intern's cancel: %d %s", got.status, got.body)
			}
			mcptestutil.WaitFor(t, 0, "intern's call cancelled upstream", func() bool { return up.cancelled.Load() == 1 })
			select {
			case got := <-answers:
				if strings.Contains(got.body, "released") {
					t.Errorf("intern's cancelled call answered %s", got.body)
				}
			case <-time.After(mcptestutil.HangBound(0)):
				t.Fatal("intern's cancelled call was not answered")
			}
		})
	}
}
