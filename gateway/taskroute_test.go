package gateway

import "testing"

// The gateway answers the task methods and task-augmented calls of the
// 2025-11-25 protocol itself; everything else, and every request of the
// 2026-07-28 protocol (whose tasks extension mcp-go does not serve), goes
// to mcp-go.
func TestTaskMessageOf(t *testing.T) {
	const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for _, c := range []struct {
		name, raw, header string
		ours              bool
	}{
		{"task-augmented call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__b","arguments":{},"task":{"ttl":60000}}}`, "", true},
		{"task-augmented call, empty task", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__b","task":{}}}`, "", true},
		{"plain call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__b","arguments":{"task":"x"}}}`, "", false},
		{"null task", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__b","task":null}}`, "", false},
		{"tasks/get", `{"jsonrpc":"2.0","id":"x","method":"tasks/get","params":{"taskId":"gw_1"}}`, "", true},
		{"tasks/result", `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"gw_1"}}`, "", true},
		{"tasks/cancel", `{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"gw_1"}}`, "", true},
		{"tasks/list", `{"jsonrpc":"2.0","id":4,"method":"tasks/list"}`, "", true},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"gw_1"}}`, "", false},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "", false},
		{"2026-07-28 call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__b","task":{},` + modernMeta + `}}`, "", false},
		{"2026-07-28 tasks/get", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"gw_1",` + modernMeta + `}}`, "", false},
		{"2026-07-28 header", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"gw_1"}}`, "2026-07-28", false},
		{"not JSON", `{"method":"tasks/get"`, "", false},
	} {
		if _, ours := taskMessageOf([]byte(c.raw), c.header); ours != c.ours {
			t.Errorf("%s: answered by the gateway %v, want %v", c.name, ours, c.ours)
		}
	}
}
