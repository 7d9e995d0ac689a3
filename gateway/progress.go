package gateway

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/session"
	"latch/ui/sanitize"
)

// progressTo forwards the upstream progress of a client's call to the
// client, under the progress token its request carried (nil when it
// carried none: the client asked for no progress).
func (g *Gateway) progressTo(ctx context.Context, req mcpgo.CallToolRequest) func(session.ToolProgress) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	token := req.Params.Meta.ProgressToken
	return func(p session.ToolProgress) {
		params := map[string]any{"progressToken": token, "progress": p.Progress}
		if p.Total > 0 {
			params["total"] = p.Total
		}
		if p.Message != "" {
			params["message"] = sanitize.Line(p.Message)
		}
		// Best effort, as progress is: a client gone or too slow to read
		// misses it.
		_ = g.srv.SendNotificationToClient(ctx, string(mcpgo.MethodNotificationProgress), params)
	}
}
