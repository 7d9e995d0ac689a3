package gateway

import (
	"context"
	"encoding/json"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/session"
)

// AwaitTool is the tool a client polls for what became of a parked call.
const AwaitTool = "latch_await_decision"

// parkNote ends the description of a tool whose calls park.
const parkNote = "(latch: a call of this tool waits for a person's approval. It returns at once " +
	`{"status":"awaiting_approval","invocation_id":…,"await_with":{"tool":"` + AwaitTool + `",…}}; ` +
	"call " + AwaitTool + " with that invocation_id until it returns the tool's real result. " +
	"This tool's output schema is not served, since the awaiting result does not match it.)"

// awaitTool is latch_await_decision's definition.
func awaitTool() mcpgo.Tool {
	return mcpgo.NewTool(AwaitTool,
		mcpgo.WithDescription("Wait a bounded time (20 s unless latch's serve.await_poll says otherwise) for a person's decision on a call that latch parked, "+
			"and return what became of it: the tool's real result once approved (it runs exactly once; every later "+
			`call returns the same result), an error {"denied": reason} when rejected, {"status":"expired"} when `+
			`no one decided in time, an error {"withdrawn": …} when its client cancelled it as an MCP task, `+
			`or the same {"status":"awaiting_approval",…} while it still waits: call again.`),
		mcpgo.WithString("invocation_id", mcpgo.Required(),
			mcpgo.Description("the invocation_id of the awaiting result")),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithDestructiveHintAnnotation(false),
		mcpgo.WithIdempotentHintAnnotation(true),
		mcpgo.WithOpenWorldHintAnnotation(false))
}

// await is latch_await_decision: a bounded long poll on a parked call,
// within the client's limits of polls (handle).
func (g *Gateway) await(ctx context.Context, req mcpgo.CallToolRequest, line *callLine) (*mcpgo.CallToolResult, error) {
	id := req.GetString("invocation_id", "")
	out := g.o.Session.GatewayAwait(ctx, id, g.awaitPoll())
	line.outcomeOf(out)
	if out.Decision == session.GatewayUnknown {
		line.ID = ""
	}
	return outcomeResult(out), nil
}

// outcomeResult is what a client is told of a gateway's call, as
// latch_await_decision and tasks/result tell it: the same for both.
func outcomeResult(out session.GatewayOutcome) *mcpgo.CallToolResult {
	switch out.Decision {
	case session.GatewayUnknown:
		return errorResult("no parked call has the invocation_id " + quote(out.ID) + " in this gateway's session " +
			"(one parked by another latch serve on this config is answered there; latch approvals lists the waiting calls of every run)")
	case session.GatewayParked:
		return awaitingResult(out)
	case session.GatewayExpired:
		return jsonResult(map[string]any{"status": "expired", "invocation_id": out.ID}, false)
	case session.GatewayDenied:
		return jsonResult(map[string]any{"denied": out.Reason}, true)
	case session.GatewayWithdrawn:
		return jsonResult(map[string]any{"withdrawn": out.Reason}, true)
	case session.GatewayInDoubt:
		return jsonResult(map[string]any{"in_doubt": out.Reason}, true)
	}
	if out.Result == nil {
		return errorResult(out.Error)
	}
	return resultOf(out.Result)
}

// awaitingResult is the handle of a parked call, as structured content
// and as its JSON text.
func awaitingResult(out session.GatewayOutcome) *mcpgo.CallToolResult {
	return jsonResult(map[string]any{
		"status":        "awaiting_approval",
		"invocation_id": out.ID,
		"expires_at":    out.Expires.UTC().Format(time.RFC3339),
		"await_with":    map[string]any{"tool": AwaitTool, "arguments": map[string]any{"invocation_id": out.ID}},
	}, false)
}

// jsonResult is v as structured content and as its JSON text.
func jsonResult(v map[string]any, isError bool) *mcpgo.CallToolResult {
	b, _ := json.Marshal(v)
	return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(b))},
		StructuredContent: v, IsError: isError}
}

// quote is a client's string, quoted and cut short.
func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// awaitPoll is how long a poll, or a call asked in the chat, waits.
func (g *Gateway) awaitPoll() time.Duration {
	if g.o.AwaitPoll <= 0 {
		return DefaultAwaitPoll
	}
	return g.o.AwaitPoll
}
