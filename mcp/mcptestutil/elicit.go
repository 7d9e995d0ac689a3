package mcptestutil

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// FormSchema is a requested schema with every kind of field a form can
// ask for, each of whose texts (titles, descriptions, enum names) carries
// mark: a required string with a length limit, an email, a URI, a date, a
// date-time, a password, a number and an integer with ranges and
// defaults, a boolean with a default, single selects (plain enum, enum
// with enumNames, oneOf) and multi-selects (items enum, items anyOf).
func FormSchema(mark string) map[string]any {
	t := func(s string) string { return s + mark }
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string", "title": t("Name"), "description": t("Your full name"), "minLength": 2, "maxLength": 40},
			"email":    map[string]any{"type": "string", "format": "email", "title": t("Email")},
			"homepage": map[string]any{"type": "string", "format": "uri", "title": t("Homepage")},
			"birthday": map[string]any{"type": "string", "format": "date", "title": t("Birthday")},
			"meeting":  map[string]any{"type": "string", "format": "date-time", "title": t("Meeting")},
			"pin":      map[string]any{"type": "string", "format": "password", "title": t("PIN"), "description": t("Never shown")},
			"score":    map[string]any{"type": "number", "title": t("Score"), "minimum": 0, "maximum": 10, "default": 7.5},
			"age":      map[string]any{"type": "integer", "title": t("Age"), "minimum": 1, "maximum": 120, "default": 30},
			"agree":    map[string]any{"type": "boolean", "title": t("Agree"), "description": t("Agree to the terms"), "default": true},
			"color":    map[string]any{"type": "string", "title": t("Color"), "enum": []any{"red", "green", "blue"}, "default": "green"},
			"pet": map[string]any{"type": "string", "title": t("Pet"), "enum": []any{"pet-1", "pet-2"},
				"enumNames": []any{t("Cats"), t("Dogs")}},
			"hero": map[string]any{"type": "string", "title": t("Hero"), "oneOf": []any{
				map[string]any{"const": "hero-1", "title": t("Superman")}, map[string]any{"const": "hero-2", "title": t("Wonder Woman")}},
				"default": "hero-2"},
			"tools": map[string]any{"type": "array", "title": t("Tools"), "minItems": 1, "maxItems": 2,
				"items": map[string]any{"type": "string", "enum": []any{"saw", "drill", "hammer"}}, "default": []any{"saw"}},
			"fish": map[string]any{"type": "array", "title": t("Fish"), "items": map[string]any{"anyOf": []any{
				map[string]any{"const": "fish-1", "title": t("Tuna")}, map[string]any{"const": "fish-2", "title": t("Trout")}}}},
		},
		"required": []any{"name", "email"},
	}
}

// FormServer is an in-process MCP server whose tools ask the client for
// input, every text they send carrying mark:
//
//	fill_form   asks for FormSchema(mark); its result is the answer as JSON
//	open_link   asks the person to open url (URL mode)
//	flood_forms asks for FormSchema(mark) n times at once; its result counts the answers by action
//	ask_and_leave asks for a form on its own and returns without waiting for the answer
//	client_caps returns the elicitation capability the client declared, as JSON
func FormServer(mark, url string) *server.MCPServer {
	s := server.NewMCPServer("desk"+mark, "1.0", server.WithElicitation())
	s.AddTool(mcp.NewTool("fill_form", mcp.WithDescription("Ask for the person's details.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message: "Please tell us about yourself" + mark, RequestedSchema: FormSchema(mark)}})
			return answer(res, err)
		})
	s.AddTool(mcp.NewTool("open_link", mcp.WithDescription("Ask the person to sign in.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Mode: mcp.ElicitationModeURL, Message: "Sign in to go on" + mark, URL: url, ElicitationID: "el-1"}})
			return answer(res, err)
		})
	s.AddTool(mcp.NewTool("flood_forms", mcp.WithDescription("Ask for many forms at once."), mcp.WithNumber("n")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := req.GetInt("n", 20)
			actions := make(chan string, n)
			for i := range n {
				go func() {
					res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
						Message: fmt.Sprintf("Form %d of a flood%s", i+1, mark), RequestedSchema: FormSchema(mark)}})
					if err != nil {
						actions <- "error"
						return
					}
					actions <- string(res.Action)
				}()
			}
			count := map[string]int{}
			for range n {
				count[<-actions]++
			}
			b, _ := json.Marshal(count)
			return mcp.NewToolResultText(string(b)), nil
		})
	s.AddTool(mcp.NewTool("ask_and_leave", mcp.WithDescription("Ask for a form, and return without waiting for it.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			go func() { // a request that outlives the call, as over stdio
				_, _ = s.RequestElicitation(context.WithoutCancel(ctx), mcp.ElicitationRequest{Params: mcp.ElicitationParams{
					Message: "A form nobody waits for" + mark, RequestedSchema: FormSchema(mark)}})
			}()
			time.Sleep(200 * time.Millisecond) // the request is out before the call returns
			return mcp.NewToolResultText("left"), nil
		})
	s.AddTool(mcp.NewTool("client_caps", mcp.WithDescription("Say what the client declared."), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
			if !ok {
				return mcp.NewToolResultError("no client info"), nil
			}
			b, _ := json.Marshal(sess.GetClientCapabilities().Elicitation)
			return mcp.NewToolResultText(string(b)), nil
		})
	return s
}

// answer is a tool result holding an elicitation's answer as JSON, or the
// error the request ended with.
func answer(res *mcp.ElicitationResult, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("elicitation failed: %v", err)), nil
	}
	b, _ := json.Marshal(res.ElicitationResponse)
	return mcp.NewToolResultText(string(b)), nil
}
