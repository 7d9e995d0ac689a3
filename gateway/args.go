package gateway

import (
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/session"
)

// arguments are a client's call's arguments as the client wrote them:
// decoded from the request's own JSON with every number kept as its
// literal (json.Number). mcp-go's map (GetArguments) went through
// float64, which rounds an integer past 2^53 (9007199254740993 becomes
// 9007199254740992): the gate, the log, the person approving and the
// server would all see a number the client never sent. Arguments that are
// not a JSON object are left to mcp-go's reading, as before.
func arguments(req mcpgo.CallToolRequest) map[string]any {
	raw := req.Params.RawArguments
	if len(raw) > 0 {
		if m, err := session.DecodeArguments(raw); err == nil {
			return m
		}
	}
	if req.Params.Arguments == nil && len(raw) > 0 && raw[0] == '{' {
		// A plain call (stdiofast.go, httpfast.go) leaves mcp-go's map
		// to be made here, as mcp-go would have made it.
		var args map[string]any
		if json.Unmarshal(raw, &args) == nil {
			return args
		}
	}
	return req.GetArguments()
}
