package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// stdioEras are the fake stdio server's two eras, for the tests that
// run on both: a server of the handshake's protocol (-legacy) has its
// plain calls sent on the transport directly (stdiocall.go), a
// 2026-07-28 one through mcp-go's client.
var stdioEras = []struct {
	name  string
	flags []string
}{{"2026-07-28", nil}, {"2025-11-25", []string{"-legacy", "answer"}}}

// plainSent is how many calls were sent to a server on the plain path.
func plainSent(m *Manager, name string) int64 {
	s := m.servers[name]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return 0
	}
	return s.conn.ids.Load()
}

// TestStdioPlainPathOnlyForTheHandshakesEra: a call to a stdio server of
// the handshake's protocol goes on the plain path and gives what mcp-go's
// client gives (the echo, an error result, a JSON-RPC error); one of the
// 2026-07-28 era goes through mcp-go's client.
func TestStdioPlainPathOnlyForTheHandshakesEra(t *testing.T) {
	for _, era := range stdioEras {
		t.Run(era.name, func(t *testing.T) {
			m, _ := startFake(t, Options{}, fakeServer(t, "fake", append([]string{"-hostile", "-fail-with", "nope"}, era.flags...)...))
			waitReady(t, m, "fake", 10*time.Second)
			if res := mustCall(t, m, "fake__echo", map[string]any{"message": "hi <&>"}); res.Text != "hi <&>" {
				t.Fatalf("echo: %+v", res)
			}
			if _, err := m.Call(context.Background(), "fake__rpc_fail", map[string]any{}, "c1"); err == nil || err.Error() != "internal error: nope" {
				t.Fatalf("rpc_fail: %v", err)
			}
			want := int64(0)
			if era.flags != nil {
				want = 2
			}
			if n := plainSent(m, "fake"); n != want {
				t.Fatalf("%d calls on the plain path, want %d", n, want)
			}
		})
	}
}

// TestParseCallResultAsMCPGo: every answer, plain or not, hostile or
// not, reads as mcp-go's ParseCallToolResult reads it: the same result,
// or the same error.
func TestParseCallResultAsMCPGo(t *testing.T) {
	for _, raw := range []string{
		`{"content":[{"type":"text","text":"hello"}]}`,
		`{"content":[{"text":"hello","type":"text"}],"isError":true}`,
		` { "content" : [ { "type" : "text" , "text" : "a\nb \u00e9 \"q\" \\" } ] } `,
		`{"content":[{"type":"text","text":"bad \xff utf-8"}]}`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":0.5}}]}`,
		`{"content":[{"type":"text","text":"x","_meta":{"k":"v"}}]}`,
		`{"content":[{"type":"text","text":"x","extra":1}]}`,
		`{"content":[{"type":"text","text":"x","text":"y"}]}`,
		`{"content":[{"type":"text","type":"image","text":"x"}]}`,
		`{"content":[{"Type":"text","text":"x"}]}`,
		`{"content":[{"type":"text","TEXT":"x"}]}`,
		`{"content":[{"type":"te\u0078t","text":"x"}]}`,
		`{"content":[{"type":"text"}]}`,
		`{"content":[{"type":"text","text":5}]}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}`,
		`{"content":[{"type":"image"}]}`,
		`{"content":[{"type":"nonsense","text":"x"}]}`,
		`{"content":[{"text":"x"}]}`,
		`{"content":[5]}`,
		`{"content":[]}`,
		`{"content":null}`,
		`{}`,
		`{"content":5}`,
		`[1]`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[1,2.5,"s",null,true]}}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":null}`,
		`{"content":[{"type":"text","text":"x"}],"_meta":{"progressToken":"t","k":{"n":1}}}`,
		`{"content":[{"type":"text","text":"x"}],"resultType":"complete"}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{}}},"requestState":"s"}`,
		`{"content":[{"type":"text","text":"x"},{"type":"resource_link","uri":"file:///a","name":"a"}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"t"}}]}`,
	} {
		t.Run(raw, func(t *testing.T) {
			msg := json.RawMessage(raw)
			want, wantErr := mcpgo.ParseCallToolResult(&msg)
			got, err := parseCallResult(msg)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, %v\nwant %#v, %v", got, err, want, wantErr)
			}
		})
	}
}

// TestCallParamsAsMCPGo: a call's params are the bytes mcp-go's client
// writes for them.
func TestCallParamsAsMCPGo(t *testing.T) {
	for _, p := range []mcpgo.CallToolParams{
		{Name: "echo", Arguments: map[string]any{"message": "hi <&> \u2028", "n": json.Number("12345678901234567890"), "list": []any{1.5, nil, true}}},
		{Name: "echo", Arguments: map[string]any{}, Meta: &mcpgo.Meta{ProgressToken: "gw_0123456789ab"}},
		{Name: "tool<&>", Arguments: map[string]any{"a": map[string]any{"b": "c"}}, Meta: &mcpgo.Meta{ProgressToken: 7}},
		{Name: "echo", Arguments: map[string]any{}, Meta: &mcpgo.Meta{AdditionalFields: map[string]any{"k": "v"}}},
		{Name: "echo"},
		{Name: "echo", RawArguments: json.RawMessage(`{"x":1}`)},
	} {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := callParams(p)
		if err != nil || string(got) != string(want) {
			t.Errorf("callParams(%+v):\n got %s (%v)\nwant %s", p, got, err, want)
		}
	}
}
