package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"latch/mcp"
)

// The scenarios of the pre-release suite (conformance-next) that need
// more than a table of calls. Those that hand the client its calls in
// $MCP_CONFORMANCE_CONTEXT (http-custom-headers) are made as listed
// (contextCalls).
var nextPlans = map[string]plan{
	// Every request's _meta and MCP-Protocol-Version header, and a retry
	// at a supported version after the first is refused: connecting and
	// listing the tools is all it takes.
	"request-metadata": listOnly,
	// A network $ref in a tool's schema is never fetched: listed only.
	"json-schema-ref-no-deref": listOnly,
	// The suite's tools whose x-mcp-header annotations are invalid must
	// not be listed: every tool latch lists is called, and the suite
	// checks that only the valid one was.
	"http-invalid-tool-headers": callAll,
	// Multi round-trip calls (a form inside the call's result, answered
	// by repeating the call with requestState echoed): every tool.
	"sep-2322-client-request-state": callAll,
	// The schema latch holds for the focal tool, echoed back as written.
	"json-schema-2020-12-preservation": echoSchema,
}

// listOnly is the plan that does nothing beyond connecting and listing.
func listOnly(context.Context, *mcp.Manager, []mcp.Tool) error { return nil }

// callAll calls every tool the server lists with no arguments; each call
// must succeed.
func callAll(ctx context.Context, m *mcp.Manager, tools []mcp.Tool) error {
	for _, t := range tools {
		res, err := m.Call(ctx, t.Name, map[string]any{}, "")
		if err != nil {
			return fmt.Errorf("call %s: %v", t.Original, err)
		}
		if res.IsError {
			return fmt.Errorf("call %s: error result %q", t.Original, res.Text)
		}
	}
	return nil
}

// echoSchema passes the input schema latch holds for
// json_schema_2020_12_tool to json_schema_echo, unchanged.
func echoSchema(ctx context.Context, m *mcp.Manager, tools []mcp.Tool) error {
	focal, ok := findTool(tools, "json_schema_2020_12_tool")
	if !ok {
		return fmt.Errorf("the server lists no json_schema_2020_12_tool (tools: %v)", originals(tools))
	}
	return callEach("json-schema-2020-12-preservation", []call{{tool: "json_schema_echo",
		args: map[string]any{"schema": focal.InputSchema}, want: "echoed"}})(ctx, m, tools)
}

// contextCalls are the tool calls $MCP_CONFORMANCE_CONTEXT lists
// (toolCalls: name and arguments), if it lists any.
func contextCalls() ([]call, bool) {
	var ctx struct {
		ToolCalls []struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &ctx); err != nil || len(ctx.ToolCalls) == 0 {
		return nil, false
	}
	out := make([]call, len(ctx.ToolCalls))
	for i, c := range ctx.ToolCalls {
		out[i] = call{tool: c.Name, args: c.Arguments}
	}
	return out, true
}
