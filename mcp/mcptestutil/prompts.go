package mcptestutil

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Departments and their people are what PromptServer completes: the
// team prompt's department, and its name narrowed by the department.
var Departments = map[string][]string{
	"Engineering": {"Alice", "Bob", "Charlie"},
	"Sales":       {"David", "Eve", "Frank"},
}

// PromptPNG is the image the picture prompt sends (a PNG's signature and
// a few bytes: what matters is that it arrives whole).
var PromptPNG = []byte("\x89PNG\r\n\x1a\nlatch-test-image")

// PromptServer is an in-process MCP server with prompts, listed two a page
// (so a client must follow the pages), that completes arguments
// (completion/complete) and announces changes to its list:
//
//	greet    no arguments: one user message
//	weather  city (required), state: "What's the weather in CITY[, STATE]?"
//	team     department, name (both required, both completed; name by
//	         department): a user message
//	picture  a user text, an image, an embedded text resource, an
//	         embedded binary resource, then an assistant message
func PromptServer() *server.MCPServer {
	s := server.NewMCPServer("kit", "1.0", server.WithPromptCapabilities(true), server.WithCompletions(),
		server.WithPromptCompletionProvider(teamCompleter{}), server.WithPaginationLimit(2))
	text := func(role mcp.Role, t string) mcp.PromptMessage {
		return mcp.NewPromptMessage(role, mcp.NewTextContent(t))
	}
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptTitle("Greeting"), mcp.WithPromptDescription("Say hello")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{text(mcp.RoleUser, "Say hello to the team.")}), nil
		})
	s.AddPrompt(mcp.NewPrompt("weather", mcp.WithPromptTitle("Weather"), mcp.WithPromptDescription("The weather in a city"),
		mcp.WithArgument("city", mcp.ArgumentDescription("Name of the city"), mcp.RequiredArgument()),
		mcp.WithArgument("state", mcp.ArgumentDescription("Name of the state"))),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			where := req.Params.Arguments["city"]
			if st := req.Params.Arguments["state"]; st != "" {
				where += ", " + st
			}
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{text(mcp.RoleUser, "What's the weather in "+where+"?")}), nil
		})
	s.AddPrompt(mcp.NewPrompt("team", mcp.WithPromptDescription("Promote someone to lead a department"),
		mcp.WithArgument("department", mcp.RequiredArgument()), mcp.WithArgument("name", mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{text(mcp.RoleUser,
				fmt.Sprintf("Please promote %s to the head of the %s team.", a["name"], a["department"]))}), nil
		})
	s.AddPrompt(mcp.NewPrompt("picture", mcp.WithPromptDescription("A picture and two resources")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("a picture", []mcp.PromptMessage{
				text(mcp.RoleUser, "Describe this picture."),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(base64.StdEncoding.EncodeToString(PromptPNG), "image/png")),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{
					URI: "kit://notes/1", MIMEType: "text/plain", Text: "Note one: the picture is of a lighthouse."})),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.BlobResourceContents{
					URI: "kit://blob/1", MIMEType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 3})})),
				text(mcp.RoleAssistant, "I will describe it."),
			}), nil
		})
	return s
}

// teamCompleter completes the team prompt's arguments.
type teamCompleter struct{}

func (teamCompleter) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, c mcp.CompleteContext) (*mcp.Completion, error) {
	var from []string
	switch {
	case prompt != "team":
	case arg.Name == "department":
		for d := range Departments {
			from = append(from, d)
		}
		slices.Sort(from)
	case arg.Name == "name":
		from = Departments[c.Arguments["department"]]
	}
	out := []string{}
	for _, v := range from {
		if strings.HasPrefix(v, arg.Value) {
			out = append(out, v)
		}
	}
	return &mcp.Completion{Values: out}, nil
}

// HostilePromptServer is an in-process MCP server whose one prompt,
// "evil", puts plant into every text it controls: its title and
// description, its argument's description, the message it returns and
// the values it completes.
func HostilePromptServer(plant string) *server.MCPServer {
	s := server.NewMCPServer("hostile", "1.0", server.WithPromptCapabilities(true), server.WithCompletions(),
		server.WithPromptCompletionProvider(hostileCompleter(plant)))
	s.AddPrompt(mcp.NewPrompt("evil", mcp.WithPromptTitle("title "+plant), mcp.WithPromptDescription("description "+plant),
		mcp.WithArgument("x", mcp.ArgumentDescription("argument "+plant))),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("result "+plant, []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("message "+plant)),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "evil://" + plant, Text: "resource " + plant})),
			}), nil
		})
	return s
}

type hostileCompleter string

func (h hostileCompleter) CompletePromptArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{"value " + string(h)}}, nil
}
