package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// meta2026 is the _meta of a call of the 2026-07-28 form, as mcp-go's
// client writes it.
const meta2026 = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},`

// httpAnswer is what an HTTP request was answered with.
type httpAnswer struct {
	status      int
	contentType string
	body        string
}

// postCall sends body to url with the rig's token and header, as a client of
// the 2026-07-28 form would (header's values replace the usual ones; an
// empty value drops the header).
func postCall(t *testing.T, url, body string, header map[string]string) httpAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(20*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"} {
		req.Header.Set(k, v)
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return httpAnswer{status: res.StatusCode, contentType: res.Header.Get("Content-Type"), body: string(b)}
}

// A tool call of the 2026-07-28 form posted to latch serve --listen is
// answered without mcp-go's streamable HTTP server when it is a plain
// call, and then byte for byte as that server answers it: status,
// Content-Type and body (the id as mcp-go writes it back, the result
// marked complete and naming latch). Every request mcp-go would refuse or
// treat otherwise goes to mcp-go: headers that disagree with the body or
// are missing, a Last-Event-ID, a tool whose schema binds arguments to
// headers, a tool not served, a number mcp-go cannot read, a progress
// token, a task, a request of a 2025 session's form.
func TestHTTPCallsAnsweredAsMCPGoAnswers(t *testing.T) {
	h := newHoldServer()
	h.srv.AddTool(mcp.NewToolWithRawSchema("region", "bound to a header",
		json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("region " + req.GetString("region", "")), nil
		})
	var log mcptestutil.SyncBuffer
	r := startRigHTTP(t, gateway.Options{Log: &log}, false, session.Options{Policy: permissions.Policy{Mode: permissions.Auto,
		ServerAllow: map[string][]string{"up": {"echo", "hold", "region"}}}}, gateway.HTTPOptions{Token: token},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: h.srv})
	// mcp-go's own answer: its streamable HTTP server on the gateway's
	// MCP server, with nothing of latch's in front.
	ref := httptest.NewServer(server.NewStreamableHTTPServer(r.g.MCPServer(), server.WithEndpointPath(gateway.Path)))
	t.Cleanup(ref.Close)
	t.Cleanup(h.release)

	echo := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + meta2026 +
			`"name":"up__echo","arguments":{"text":"<hi> & 1e400"}}}`
	}
	for _, c := range []struct {
		name   string
		body   string
		header map[string]string
		plain  bool
	}{
		{"plain", echo(`7`), nil, true},
		{"string id", echo(`"call-7"`), nil, true},
		{"id mcp-go rewrites", echo(`1e3`), nil, true},
		{"string id mcp-go rewrites", echo(`"\u0041<b>"`), nil, true},
		{"content type with parameters", echo(`8`), map[string]string{"Content-Type": "application/json; charset=utf-8"}, true},
		{"name in base64", echo(`9`), map[string]string{"Mcp-Name": "=?base64?dXBfX2VjaG8=?="}, true},
		{"no arguments", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{` + meta2026 + `"name":"up__echo"}}`, nil, true},
		{"name header of another tool", echo(`11`), map[string]string{"Mcp-Name": "up__hold"}, false},
		{"no name header", echo(`12`), map[string]string{"Mcp-Name": ""}, false},
		{"no method header", echo(`13`), map[string]string{"Mcp-Method": ""}, false},
		{"header of another version", echo(`14`), map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, false},
		{"last event id", echo(`15`), map[string]string{"Last-Event-ID": "1"}, false},
		{"not json", echo(`16`), map[string]string{"Content-Type": "text/plain"}, false},
		{"argument bound to a header", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{` + meta2026 +
			`"name":"up__region","arguments":{"region":"eu"}}}`, map[string]string{"Mcp-Name": "up__region", "Mcp-Param-Region": "eu"}, false},
		{"argument bound to a header, header missing", `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{` + meta2026 +
			`"name":"up__region","arguments":{"region":"eu"}}}`, map[string]string{"Mcp-Name": "up__region"}, false},
		{"tool not served", `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{` + meta2026 +
			`"name":"up__nope"}}`, map[string]string{"Mcp-Name": "up__nope"}, false},
		{"number past float64", `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{` + meta2026 +
			`"name":"up__echo","arguments":{"text":1e400}}}`, nil, false},
		{"progress token", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"_meta":{"progressToken":"p",` + meta2026[len(`"_meta":{`):] +
			`"name":"up__echo","arguments":{"text":"x"}}}`, nil, false},
		{"no client capabilities", `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"up__echo"}}`, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			header := map[string]string{"Mcp-Name": "up__echo"}
			for k, v := range c.header {
				header[k] = v
			}
			before := gateway.PlainCalls(r.g)
			got := postCall(t, r.url, c.body, header)
			if plain := gateway.PlainCalls(r.g) > before; plain != c.plain {
				t.Errorf("answered without mcp-go: %v, want %v", plain, c.plain)
			}
			if want := postCall(t, ref.URL+gateway.Path, c.body, header); got != want {
				t.Errorf("answered\n%d %s %s\nmcp-go answers\n%d %s %s", got.status, got.contentType, got.body,
					want.status, want.contentType, want.body)
			}
			if c.plain && !strings.Contains(got.body, `"text":"echo `) {
				t.Errorf("answer %s: not the echo", got.body)
			}
		})
	}
	// A plain call runs as the client its _meta names, as mcp-go's do.
	before := gateway.PlainCalls(r.g)
	postCall(t, r.url, strings.Replace(echo(`23`), `"name":"raw"`, `"name":"fast-client"`, 1), map[string]string{"Mcp-Name": "up__echo"})
	if gateway.PlainCalls(r.g) == before || !strings.Contains(log.String(), "latch serve: fast-client up__echo allowed") {
		t.Errorf("a plain call of fast-client's: the log says\n%s", log.String())
	}
}
