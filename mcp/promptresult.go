package mcp

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// PromptResult is what a server's prompts/get returned, redacted.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// Kinds of a prompt message's content.
const (
	PartText     = "text"     // Text holds it
	PartImage    = "image"    // Data holds the decoded image
	PartResource = "resource" // an embedded resource: Text holds its text, or Data its bytes
	PartAudio    = "audio"    // Data holds the decoded audio
	PartLink     = "link"     // a resource link: URI and Text (its name)
	PartOther    = "other"    // something else: Text describes it
)

// PromptMessage is one message of a prompt: its role and its one piece
// of content.
type PromptMessage struct {
	Role     string // "user" or "assistant"
	Kind     string // see PartText and the others
	Text     string // text, a text resource's content, a link's name
	URI      string // an embedded resource's or a link's
	MIMEType string
	Data     []byte // an image's, audio's or binary resource's bytes, decoded
	// Truncated says Text was cut to the manager's MaxResultBytes.
	Truncated bool
	Size      int // bytes of Text before any cut
}

// convertPromptResult turns mcp-go's result into ours: secrets redacted
// from every text, then each text capped at max bytes.
func convertPromptResult(res *mcpgo.GetPromptResult, max int, red *redactor) *PromptResult {
	out := &PromptResult{Description: red.apply(res.Description)}
	for _, pm := range res.Messages {
		msg := convertContent(pm.Content)
		msg.Role = string(pm.Role)
		if msg.Role != string(mcpgo.RoleAssistant) {
			msg.Role = string(mcpgo.RoleUser)
		}
		msg.URI, msg.MIMEType = red.apply(msg.URI), red.apply(msg.MIMEType)
		msg.Text = red.apply(msg.Text)
		msg.Size = len(msg.Text)
		if max > 0 && len(msg.Text) > max {
			msg.Text = red.cut(msg.Text, max)
			msg.Truncated = true
		}
		out.Messages = append(out.Messages, msg)
	}
	return out
}

// convertContent is one piece of a prompt message's content in our terms.
func convertContent(c mcpgo.Content) PromptMessage {
	switch c := c.(type) {
	case mcpgo.TextContent:
		return PromptMessage{Kind: PartText, Text: c.Text}
	case mcpgo.ImageContent:
		return decoded(PromptMessage{Kind: PartImage, MIMEType: c.MIMEType}, c.Data)
	case mcpgo.AudioContent:
		return decoded(PromptMessage{Kind: PartAudio, MIMEType: c.MIMEType}, c.Data)
	case mcpgo.EmbeddedResource:
		return convertResource(c.Resource)
	case mcpgo.ResourceLink:
		return PromptMessage{Kind: PartLink, URI: c.URI, Text: c.Name, MIMEType: c.MIMEType}
	case nil:
		return PromptMessage{Kind: PartOther, Text: "[empty message]"}
	}
	return PromptMessage{Kind: PartOther, Text: fmt.Sprintf("[content of an unknown kind (%T)]", c)}
}

// convertResource is an embedded resource: text as text; a blob of a
// text type that is valid UTF-8 as text too; any other blob as bytes.
func convertResource(r mcpgo.ResourceContents) PromptMessage {
	switch r := r.(type) {
	case mcpgo.TextResourceContents:
		return PromptMessage{Kind: PartResource, URI: r.URI, MIMEType: r.MIMEType, Text: r.Text}
	case mcpgo.BlobResourceContents:
		m := decoded(PromptMessage{Kind: PartResource, URI: r.URI, MIMEType: r.MIMEType}, r.Blob)
		if m.Data != nil && isTextType(r.MIMEType) && utf8.Valid(m.Data) {
			m.Text, m.Data = string(m.Data), nil
		}
		return m
	}
	return PromptMessage{Kind: PartOther, Text: "[an embedded resource of an unknown kind]"}
}

// decoded sets m.Data to the base64 data, or, when it does not decode,
// says so in m.Text.
func decoded(m PromptMessage, b64 string) PromptMessage {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		m.Text = fmt.Sprintf("[%s data that is not valid base64]", m.Kind)
		return m
	}
	m.Data = data
	return m
}

// isTextType reports whether a MIME type is text the model can read.
func isTextType(mime string) bool {
	mime, _, _ = strings.Cut(strings.ToLower(mime), ";")
	mime = strings.TrimSpace(mime)
	switch {
	case strings.HasPrefix(mime, "text/"), mime == "application/json", mime == "application/xml",
		strings.HasSuffix(mime, "+json"), strings.HasSuffix(mime, "+xml"), mime == "application/yaml":
		return true
	}
	return false
}
