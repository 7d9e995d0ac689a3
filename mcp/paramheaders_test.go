package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"
)

// headerRig is an mcp-go server over streamable HTTP with a tool whose
// region and priority parameters are marked x-mcp-header (mcp-go's server
// refuses a 2026-07-28 call whose headers do not match its body), and a
// second tool whose annotation is invalid, slipped into its tools/list
// (mcp-go would not register it). It records the Mcp-Param headers of
// each call and counts the calls that reached the tool.
type headerRig struct {
	url   string
	ran   atomic.Int32
	mu    sync.Mutex
	calls []http.Header
}

func newHeaderRig(t *testing.T) *headerRig {
	t.Helper()
	rig := &headerRig{}
	hooks := &mcpserver.Hooks{}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcpgo.ListToolsRequest, res *mcpgo.ListToolsResult) {
		res.Tools = append(res.Tools, mcpgo.NewToolWithRawSchema("bad", "header on an object",
			json.RawMessage(`{"type":"object","properties":{"data":{"type":"object","x-mcp-header":"Data"}}}`)))
	})
	srv := mcpserver.NewMCPServer("hdr", "1.0.0", mcpserver.WithHooks(hooks))
	srv.AddTool(mcpgo.NewToolWithRawSchema("deploy", "deploy somewhere", json.RawMessage(`{"type":"object",
		"properties":{"region":{"type":"string","x-mcp-header":"Region"},
		"priority":{"type":"integer","x-mcp-header":"Priority"},"note":{"type":"string"}}}`)),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			rig.ran.Add(1)
			return mcpgo.NewToolResultText("deployed to " + req.GetString("region", "")), nil
		})
	h := servertest.NewTestStreamableHTTPServer(srv)
	t.Cleanup(h.Close)
	inner := h.Config.Handler
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := http.Header{}
		for k, v := range r.Header {
			if strings.HasPrefix(k, "Mcp-Param-") {
				got[k] = v
			}
		}
		if r.Header.Get("Mcp-Method") == "tools/call" || len(got) > 0 {
			rig.mu.Lock()
			rig.calls = append(rig.calls, got)
			rig.mu.Unlock()
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	rig.url = front.URL + "/mcp"
	return rig
}

func (r *headerRig) lastCall(t *testing.T) http.Header {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		t.Fatal("no tools/call reached the server")
	}
	return r.calls[len(r.calls)-1]
}

// TestParamHeadersTravelOnStatelessHTTP: on 2026-07-28 over streamable
// HTTP a call of a tool whose parameters are marked x-mcp-header carries
// them as Mcp-Param headers (Base64 where the value is not plain ASCII,
// none for an unmarked or absent parameter), so the server takes the
// call; a tool whose annotation is invalid is not offered, and the
// server's log says why.
func TestParamHeadersTravelOnStatelessHTTP(t *testing.T) {
	rig := newHeaderRig(t)
	m, _ := startFake(t, Options{}, ServerConfig{Name: "hdr", Transport: TransportHTTP, URL: rig.url})
	if st := waitReady(t, m, "hdr", 10*time.Second); st.ProtocolVersion != ProtocolModern {
		t.Fatalf("protocol %q", st.ProtocolVersion)
	}
	res := mustCall(t, m, "hdr__deploy", map[string]any{"region": "Zürich", "priority": 3, "note": "n"})
	if res.Text != "deployed to Zürich" {
		t.Fatalf("result %q", res.Text)
	}
	got := rig.lastCall(t)
	want := "=?base64?" + base64.StdEncoding.EncodeToString([]byte("Zürich")) + "?="
	if got.Get("Mcp-Param-Region") != want || got.Get("Mcp-Param-Priority") != "3" || len(got) != 2 {
		t.Fatalf("headers %v, want Region %q and Priority 3 only", got, want)
	}
	mustCall(t, m, "hdr__deploy", map[string]any{"region": "eu", "priority": nil})
	if got := rig.lastCall(t); got.Get("Mcp-Param-Region") != "eu" || len(got) != 1 {
		t.Fatalf("a null priority: headers %v, want Region only", got)
	}
	if _, ok := m.Lookup("hdr__bad"); ok {
		t.Fatal("a tool with an invalid x-mcp-header annotation is offered")
	}
	logs, _ := m.Logs("hdr")
	if !strings.Contains(strings.Join(logs, "\n"), `tool "bad" left out: its x-mcp-header annotations are invalid`) {
		t.Fatalf("the log does not say why bad is left out: %q", logs)
	}
}

// TestParamHeaderRefusedBeforeSending: an argument that cannot be a
// header value (a fraction for an integer header, an object) is refused
// before anything is sent, and the error, which reaches the model and the
// card, names the parameter and its header.
func TestParamHeaderRefusedBeforeSending(t *testing.T) {
	rig := newHeaderRig(t)
	m, _ := startFake(t, Options{}, ServerConfig{Name: "hdr", Transport: TransportHTTP, URL: rig.url})
	waitReady(t, m, "hdr", 10*time.Second)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"region": "eu", "priority": 2.5}, `argument "priority" of hdr__deploy cannot be sent as its header Mcp-Param-Priority: 2.5 is not an integer`},
		{map[string]any{"region": map[string]any{"a": 1}}, `argument "region" of hdr__deploy cannot be sent as its header Mcp-Param-Region: an object`},
		{map[string]any{"region": strings.Repeat("x", 9000)}, `argument "region" of hdr__deploy cannot be sent as its header Mcp-Param-Region: 9000 bytes`},
	} {
		_, err := m.Call(context.Background(), "hdr__deploy", tc.args, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("error %v, want one containing %q", err, tc.want)
		}
	}
	rig.mu.Lock()
	sent := len(rig.calls)
	rig.mu.Unlock()
	if sent != 0 || rig.ran.Load() != 0 {
		t.Fatalf("%d refused calls reached the server, %d ran", sent, rig.ran.Load())
	}
}

// TestNoToolOfferedWithInvalidHeaders: a tool whose x-mcp-header
// annotation is invalid is never offered, on a connection that sends no
// Mcp-Param headers too (here 2025-11-25), nor one whose header name
// turns invalid once the server's token in it is redacted: latch serve
// offers every tool again through mcp-go's server, which panics on such
// a definition.
func TestNoToolOfferedWithInvalidHeaders(t *testing.T) {
	const token = "tok-0123456789abcdef"
	rig := newHeaderRig(t)
	m, _ := startFake(t, Options{}, ServerConfig{Name: "hdr", Transport: TransportHTTP, URL: rig.url,
		Protocol: ProtocolLegacy, Token: token})
	waitReady(t, m, "hdr", 10*time.Second)
	if _, ok := m.Lookup("hdr__bad"); ok {
		t.Error("a tool with an invalid x-mcp-header annotation is offered on 2025-11-25")
	}
	mustCall(t, m, "hdr__deploy", map[string]any{"region": "eu"}) // the others kept: no headers on this era
	rig.mu.Lock()
	if len(rig.calls) != 0 {
		t.Errorf("Mcp-Param headers on 2025-11-25: %v", rig.calls)
	}
	rig.mu.Unlock()

	leaky := mcpserver.NewMCPServer("leaky", "1.0.0")
	leaky.AddTool(mcpgo.NewToolWithRawSchema("echo", "names a header after the token",
		json.RawMessage(`{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"`+token+`"}}}`)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("ok"), nil
		})
	h := servertest.NewTestStreamableHTTPServer(leaky)
	t.Cleanup(h.Close)
	m2, _ := startFake(t, Options{}, ServerConfig{Name: "leaky", Transport: TransportHTTP, URL: h.URL + "/mcp", Token: token})
	waitReady(t, m2, "leaky", 10*time.Second)
	for _, tool := range m2.Tools() {
		raw, _ := json.Marshal(tool.InputSchema)
		if err := mcpgo.ValidateParamHeaderAnnotations(&mcpgo.Tool{Name: tool.Name, RawInputSchema: raw}); err != nil {
			t.Errorf("offered with an invalid annotation: %s: %v", tool.Name, err)
		}
	}
}
