package mcptestutil

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// InputServer is an in-process MCP server whose tool "ask" needs a form,
// a sample of the client's model and the client's roots, asked for the
// way of the 2026-07-28 era: its first answer is input_required, and the
// call repeated with the answers completes. mcp-go turns those into
// server requests (elicitation/create, sampling/createMessage,
// roots/list) for a 2025-11-25 client, so the one handler serves both
// eras. The result is the answers as JSON: {"form": action and content,
// "sample": text, "roots": URIs}.
func InputServer() *server.MCPServer {
	s := server.NewMCPServer("inputs", "1.0", server.WithElicitation())
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("Asks for a form, a sample and the roots.")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			answers := req.Params.InputResponses
			if len(answers) == 0 {
				return server.NewInputRequestBuilder("asked").
					Elicit("form", mcp.ElicitationParams{Message: "Your name?", RequestedSchema: nameSchema()}).
					Sample("sample", mcp.CreateMessageParams{MaxTokens: 50, Messages: []mcp.SamplingMessage{
						{Role: mcp.RoleUser, Content: mcp.NewTextContent("Say hi.")}}}).
					Roots("roots").
					ToolResult(), nil
			}
			out := map[string]any{}
			if f := server.ElicitationResponse(answers, "form"); f != nil {
				out["form"] = map[string]any{"action": f.Action, "content": f.Content}
			}
			if r := server.SamplingResponse(answers, "sample"); r != nil {
				// A struct from a legacy answer, a map from a 2026-07-28 one.
				var text struct {
					Text string `json:"text"`
				}
				b, _ := json.Marshal(r.Content)
				_ = json.Unmarshal(b, &text)
				out["sample"] = text.Text
			}
			if r := server.RootsResponse(answers, "roots"); r != nil {
				var uris []string
				for _, root := range r.Roots {
					uris = append(uris, root.URI)
				}
				out["roots"] = uris
			}
			b, _ := json.Marshal(out)
			return mcp.NewToolResultText(string(b)), nil
		})
	return s
}
