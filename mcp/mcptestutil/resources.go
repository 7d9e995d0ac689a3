package mcptestutil

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DotPNG is a 1×1 PNG, the image ResourceServer serves.
var DotPNG, _ = base64.StdEncoding.DecodeString(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

// BigTextSize is the size of ResourceServer's big text resource.
const BigTextSize = 40 * 1024

// ResourceServer is an in-process MCP server with resources, plant put
// into every text it controls (names, URIs, descriptions, contents,
// completions, errors; "" for a plain one). It offers subscriptions and
// completions, and lists its resources two to a page. Its resources:
//
//	test://notes/readme.txt   text: "readme: " + plant
//	test://notes/big.txt      text of BigTextSize bytes, plant at its start
//	test://img/dot.png        an image (DotPNG)
//	test://bin/data.bin       a blob of 300 bytes
//	test://broken             fails to read, with plant in the error
//	test://notes/{name}       a template: "note NAME" + plant; name completes
//	                          from alpha, alpine, beta
//	test://plant/<plant>      text, listed only when plant is not ""
func ResourceServer(plant string) *server.MCPServer {
	s := server.NewMCPServer("resources"+plant, "1.0", server.WithResourceCapabilities(true, true),
		server.WithCompletions(), server.WithResourceCompletionProvider(noteCompleter{plant}), server.WithPaginationLimit(2))
	text := func(uri, mime, body string) server.ResourceHandlerFunc {
		return func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: body}}, nil
		}
	}
	blob := func(uri, mime string, b []byte) server.ResourceHandlerFunc {
		return func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: mime, Blob: base64.StdEncoding.EncodeToString(b)}}, nil
		}
	}
	add := func(uri, name, mime string, h server.ResourceHandlerFunc) {
		s.AddResource(mcp.NewResource(uri, name+plant, mcp.WithResourceDescription("about "+name+plant), mcp.WithMIMEType(mime)), h)
	}
	add("test://notes/readme.txt", "readme", "text/plain", text("test://notes/readme.txt", "text/plain", "readme: "+plant))
	big := plant + strings.Repeat("b", BigTextSize-len(plant))
	add("test://notes/big.txt", "big", "text/plain", text("test://notes/big.txt", "text/plain", big))
	add("test://img/dot.png", "dot", "image/png", blob("test://img/dot.png", "image/png", DotPNG))
	add("test://bin/data.bin", "data", "application/octet-stream", blob("test://bin/data.bin", "application/octet-stream", make([]byte, 300)))
	add("test://broken", "broken", "text/plain", func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, errors.New("cannot read " + plant)
	})
	if plant != "" {
		u := "test://plant/" + plant
		add(u, "plant", "text/plain", text(u, "text/plain", "planted "+plant))
	}
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://notes/{name}", "note"+plant,
		mcp.WithTemplateDescription("a note by name"+plant), mcp.WithTemplateMIMEType("text/plain")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			name := strings.TrimPrefix(req.Params.URI, "test://notes/")
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "note " + name + plant}}, nil
		})
	return s
}

// noteCompleter completes the name of ResourceServer's template.
type noteCompleter struct{ plant string }

func (c noteCompleter) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	var out []string
	if uri == "test://notes/{name}" && arg.Name == "name" {
		for _, v := range []string{"alpha", "alpine", "beta"} {
			if strings.HasPrefix(v, arg.Value) {
				out = append(out, v)
			}
		}
		if c.plant != "" {
			out = append(out, "x"+c.plant)
		}
	}
	return &mcp.Completion{Values: out}, nil
}

// UpdateResource tells every client of s that a resource changed
// (notifications/resources/updated).
func UpdateResource(s *server.MCPServer, uri string) {
	s.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri})
}
