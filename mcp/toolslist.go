package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// listSeq numbers latch's own tools/list requests. Their ids are strings,
// so they never meet the client's numbered ones on the same transport.
var listSeq atomic.Int64

// listTools lists every page of a server's tools, each with its input and
// output schemas as the server wrote them (RawInputSchema,
// RawOutputSchema; InputSchema and OutputSchema left empty, so that there
// is one schema and a Tool marshals). mcp-go's ListTools parses a schema
// into its ToolInputSchema, which keeps only type, properties, required,
// $defs and additionalProperties: the rest (minimum, a top-level enum or
// oneOf, $schema, description, prefixItems, $ref…) would be lost for the
// model and for a gateway's clients. So tools/list goes through the
// client's transport here, and the tools are read from the raw result.
// On the stateless era each request carries the connection's _meta and
// standard headers (era.go). No $ref is followed. A tool whose
// x-mcp-header annotations are invalid is left out (paramheaders.go).
func listTools(ctx context.Context, c *conn) ([]mcpgo.Tool, error) {
	var out []mcpgo.Tool
	var cursor mcpgo.Cursor
	seen := map[mcpgo.Cursor]bool{"": true}
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, err := c.client.GetTransport().SendRequest(ctx, c.eraRequest(transport.JSONRPCRequest{
			JSONRPC: mcpgo.JSONRPC_VERSION,
			ID:      mcpgo.NewRequestId(fmt.Sprintf("latch-tools-%d", listSeq.Add(1))),
			Method:  string(mcpgo.MethodToolsList),
			Params:  params,
		}))
		if err != nil {
			return nil, transport.NewError(err)
		}
		if resp.Error != nil {
			return nil, resp.Error.AsError()
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor mcpgo.Cursor      `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &page); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		for _, raw := range page.Tools {
			t, err := rawTool(raw)
			if err != nil {
				return nil, fmt.Errorf("tools/list: %w", err)
			}
			out = append(out, t)
		}
		if page.NextCursor == "" {
			return withValidHeaders(out, c.red, c.notice), nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("tools/list: %w: %q", client.ErrRepeatedListCursor, page.NextCursor)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}

// rawTool parses one tool of a tools/list result, keeping its schemas as
// written.
func rawTool(raw json.RawMessage) (mcpgo.Tool, error) {
	var t mcpgo.Tool
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, err
	}
	var schemas struct {
		Input  json.RawMessage `json:"inputSchema"`
		Output json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &schemas); err != nil {
		return t, err
	}
	t.InputSchema, t.OutputSchema = mcpgo.ToolInputSchema{}, mcpgo.ToolOutputSchema{}
	t.RawInputSchema, t.RawOutputSchema = nonNull(schemas.Input), nonNull(schemas.Output)
	return t, nil
}

// nonNull is raw, or nil for an absent or null value.
func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}
