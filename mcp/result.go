package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// DefaultMaxResultBytes caps the text of one tool result kept and passed on.
const DefaultMaxResultBytes = 1 << 20

// Result is what a tool call returned, in our own terms.
type Result struct {
	Text       string // every text part, joined by newlines; notes for other parts
	Structured any    // structured content, if the server sent some
	IsError    bool   // the tool reported failure (the call itself worked)
	Images     int    // image parts (noted in Text, not passed on)
	Truncated  bool   // Text was cut to the cap
	Size       int    // bytes of text before any cut
	// Resources are the resources the result links to or embeds, in
	// order: each can be attached to a message with @SERVER:URI.
	Resources []ResourceRef
	// Content is every content part as the server sent it (images and
	// all, not capped), as JSON objects, redacted: what a gateway passes
	// on to its client.
	Content []map[string]any
}

// ResourceRef is a resource a tool's result links to (resource_link) or
// embeds (resource), redacted.
type ResourceRef struct {
	URI      string
	Name     string
	MIMEType string
	Embedded bool
}

// convertResult turns mcp-go's result into ours, with secrets redacted,
// then capped at max bytes of text.
func convertResult(res *mcpgo.CallToolResult, max int, red *redactor) *Result {
	out := &Result{IsError: res.IsError, Structured: redactAll(red, res.StructuredContent)}
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case mcpgo.TextContent:
			b.WriteString(c.Text)
		case mcpgo.ImageContent:
			out.Images++
			fmt.Fprintf(&b, "[image: %s, %d bytes base64]", c.MIMEType, len(c.Data))
		case mcpgo.AudioContent:
			fmt.Fprintf(&b, "[audio: %s, %d bytes base64]", c.MIMEType, len(c.Data))
		case mcpgo.EmbeddedResource:
			out.Resources = append(out.Resources, embeddedRef(c))
			writeEmbedded(&b, c)
		case mcpgo.ResourceLink:
			out.Resources = append(out.Resources, ResourceRef{URI: c.URI, Name: c.Name, MIMEType: c.MIMEType})
			fmt.Fprintf(&b, "[resource link: %s]", c.URI)
		default:
			raw, _ := json.Marshal(c)
			b.Write(raw)
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		b.Write(raw)
	}
	// Redact, then cut: a cut first could split a secret, and its first
	// part would be left for anyone to read.
	text := red.apply(b.String())
	out.Size = len(text)
	if max > 0 && len(text) > max {
		kept := red.cut(text, max)
		text = kept + fmt.Sprintf("\n[result truncated: %d of %d bytes shown]", len(kept), out.Size)
		out.Truncated = true
	}
	out.Text = text
	out.Resources = redactAll(red, out.Resources)
	out.Content = redactAll(red, contentParts(res.Content))
	return out
}

// contentParts is each content part as a JSON object, in order.
func contentParts(cs []mcpgo.Content) []map[string]any {
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		if part, ok := plainText(c); ok {
			out = append(out, part)
			continue
		}
		raw, err := json.Marshal(c)
		if err != nil {
			continue
		}
		var part map[string]any
		if json.Unmarshal(raw, &part) == nil {
			out = append(out, part)
		}
	}
	return out
}

// plainText is a text part with nothing but its text as the JSON object
// encoding and decoding it would give, made without either (the most
// common part, on every call of a gateway's); not ok for any other part,
// or text that is not valid UTF-8 (which encoding would change).
func plainText(c mcpgo.Content) (map[string]any, bool) {
	t, ok := c.(mcpgo.TextContent)
	if !ok || t.Type != mcpgo.ContentTypeText || t.Annotations != nil || t.Meta != nil || !utf8.ValidString(t.Text) {
		return nil, false
	}
	return map[string]any{"type": t.Type, "text": t.Text}, true
}
