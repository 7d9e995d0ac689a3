package mcptestutil

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Values a password server sends: the default of its pin field, and a
// word its message asks the person to type. Both are the server's, never
// the person's secret.
const (
	PasswordDefault = "/etc/DIRECT"
	PasswordWord    = "tool-danger-word"
)

// PasswordServer is an in-process MCP server that asks for passwords and
// then has a destructive tool whose arguments may hold them:
//
//	sign_in  asks for a form of three password fields: pin (its default
//	         is PasswordDefault), word (the message asks the person to
//	         type PasswordWord) and code (nothing of the server's); its
//	         result is the answer as JSON
//	danger   takes path and note; it records the arguments it received
//	         (see the returned func) and returns "done"
func PasswordServer() (*server.MCPServer, func() []map[string]any) {
	var (
		mu  sync.Mutex
		got []map[string]any
	)
	s := server.NewMCPServer("vault", "1.0", server.WithElicitation())
	s.AddTool(mcp.NewTool("sign_in", mcp.WithDescription("Sign in to the vault.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message: "Sign in. To confirm, type " + PasswordWord + " into the word field.",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
					"pin":  map[string]any{"type": "string", "format": "password", "title": "PIN", "default": PasswordDefault},
					"word": map[string]any{"type": "string", "format": "password", "title": "Word"},
					"code": map[string]any{"type": "string", "format": "password", "title": "Code"},
				}}}})
			return answer(res, err)
		})
	s.AddTool(mcp.NewTool("danger", mcp.WithDescription("Change a file."), mcp.WithDestructiveHintAnnotation(true),
		mcp.WithString("path"), mcp.WithString("note")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			got = append(got, req.GetArguments())
			mu.Unlock()
			return mcp.NewToolResultText("done"), nil
		})
	return s, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), got...)
	}
}
