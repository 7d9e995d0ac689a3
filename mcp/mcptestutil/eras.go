package mcptestutil

import (
	"context"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ErasNote is the resource ErasServer serves and its tool touch says
// changed.
const ErasNote = "test://eras/note"

// ErasLink is the URL ErasServer's tool link asks the person to open.
const ErasLink = "https://example.com/eras/login?step=1"

// ErasServer is an mcp-go server with what latch's tests ask of a server on
// either protocol era, the same surface as testdata/npm/v2server (a server
// of the official TypeScript SDK v2), so the two can be run by one test:
//
//	tool echo {message}  the message
//	tool ask             InputServer's: a form, a sample and the roots
//	tool link            a URL form (ErasLink), answered "link: ACTION"
//	tool touch           notifications/resources/updated for ErasNote
//	tool say             logs "quiet" at info and "loud" at warning
//	tool grow            adds the tool late (tools/list_changed), which
//	                     returns "late"
//	tool roots           the roots (asked for), one URI a line
//	prompt greet {name}  one user message, "Hello, NAME."
//	prompt introduce     a form ("Your name?"), then "I am NAME."
//	resource ErasNote    "a note" (subscriptions offered)
//
// (The TypeScript server also serves test://eras/roots, which asks for the
// roots: mcp-go's resource handlers cannot ask for input.)
//
// The input requests are the 2026-07-28 era's (input_required); mcp-go
// turns them into server requests for a 2025-11-25 client.
func ErasServer() *server.MCPServer {
	s := InputServer()
	server.WithResourceCapabilities(true, true)(s)
	server.WithPromptCapabilities(true)(s)
	server.WithLogging()(s)
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns the message."), mcp.WithString("message", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	s.AddTool(mcp.NewTool("link", mcp.WithDescription("Asks the person to open a link.")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if a := server.ElicitationResponse(req.Params.InputResponses, "login"); a != nil {
				return mcp.NewToolResultText("link: " + string(a.Action)), nil
			}
			return server.NewInputRequestBuilder("").
				Elicit("login", mcp.ElicitationParams{Mode: "url", Message: "Sign in to eras.", URL: ErasLink, ElicitationID: "eras-login"}).
				ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("touch", mcp.WithDescription("Says the note changed.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			UpdateResource(s, ErasNote)
			return mcp.NewToolResultText("touched"), nil
		})
	s.AddTool(mcp.NewTool("say", mcp.WithDescription("Logs at info and at warning.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "eras", "quiet"))
			_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelWarning, "eras", "loud"))
			// mcp-go's HTTP server forwards a request's notifications from
			// a goroutine that drops one it holds when the answer goes
			// first: give it time to write them.
			time.Sleep(100 * time.Millisecond)
			return mcp.NewToolResultText("said"), nil
		})
	s.AddTool(mcp.NewTool("roots", mcp.WithDescription("Asks for the roots.")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := server.RootsResponse(req.Params.InputResponses, "roots")
			if r == nil {
				return server.NewInputRequestBuilder("").Roots("roots").ToolResult(), nil
			}
			var uris []string
			for _, root := range r.Roots {
				uris = append(uris, root.URI)
			}
			return mcp.NewToolResultText(strings.Join(uris, "\n")), nil
		})
	s.AddTool(mcp.NewTool("grow", mcp.WithDescription("Adds the tool late.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("late", mcp.WithDescription("Added by grow.")),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("late"), nil
				})
			return mcp.NewToolResultText("grown"), nil
		})
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("Greets someone."), mcp.WithArgument("name", mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			msg := mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Hello, "+req.Params.Arguments["name"]+"."))
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{msg}), nil
		})
	s.AddPrompt(mcp.NewPrompt("introduce", mcp.WithPromptDescription("Asks a name, then introduces it.")),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := server.ElicitationResponse(req.Params.InputResponses, "form")
			if a == nil {
				return server.NewInputRequestBuilder("").Elicit("form", mcp.ElicitationParams{Message: "Your name?", RequestedSchema: nameSchema()}).PromptResult(), nil
			}
			name := "nobody"
			if content, ok := a.Content.(map[string]any); ok && a.Action == mcp.ElicitationResponseActionAccept {
				name, _ = content["name"].(string)
			}
			msg := mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("I am "+name+"."))
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{msg}), nil
		})
	s.AddResource(mcp.NewResource(ErasNote, "note", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: ErasNote, MIMEType: "text/plain", Text: "a note"}}, nil
		})
	return s
}

// nameSchema is the form of the tool ask and the prompt introduce: a
// required name.
func nameSchema() map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Name"}},
		"required":   []any{"name"},
	}
}
