package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Tool is one tool as the model sees it.
type Tool struct {
	Name        string         // model-facing: <server>__<tool>, fixed up if needed
	Server      string         // the server's name in the config
	Original    string         // the tool's name on the server
	Title       string         // a display title, if the server gave one
	Description string         // as the server gave it (sanitize before drawing)
	InputSchema map[string]any // the JSON schema of the arguments
	ReadOnly    bool           // the server says it does not modify anything
	Destructive bool           // the server says it may destroy (mcp-go's default when unsaid)
	Digest      string         // changes when the definition (schema, description, hints) changes
	// OutputSchema is the JSON schema of the tool's structured result,
	// nil when the server gave none.
	OutputSchema map[string]any
	// Annotations are the hints as the server gave them (unset ones nil),
	// for a gateway to serve the tool as it is.
	Annotations Annotations
}

// Annotations are a tool's hints as its server gave them; nil when unsaid.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// convertTool turns a listed tool into ours: its schemas as the server
// wrote them (listTools).
func convertTool(server, name string, t mcpgo.Tool) Tool {
	out := Tool{
		Name: name, Server: server, Original: t.Name, Title: t.Title,
		Description: t.Description, InputSchema: schemaOf(t.RawInputSchema, t.InputSchema),
	}
	if t.RawOutputSchema != nil || t.OutputSchema.Type != "" {
		out.OutputSchema = schemaOf(t.RawOutputSchema, t.OutputSchema)
	}
	a := t.Annotations
	out.Annotations = Annotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: a.DestructiveHint,
		IdempotentHint: a.IdempotentHint, OpenWorldHint: a.OpenWorldHint}
	if h := t.Annotations.ReadOnlyHint; h != nil {
		out.ReadOnly = *h
	}
	// The spec's default for destructiveHint is true unless read-only.
	out.Destructive = !out.ReadOnly
	if h := t.Annotations.DestructiveHint; h != nil && !out.ReadOnly {
		out.Destructive = *h
	}
	out.Digest = digest(t)
	return out
}

// schemaOf is a schema as a map: raw as written, or when there is none
// the parsed one.
func schemaOf(raw json.RawMessage, parsed any) map[string]any {
	schema := map[string]any{}
	if raw == nil {
		raw, _ = json.Marshal(parsed)
	}
	_ = json.Unmarshal(raw, &schema)
	return schema
}

// undigested are the keywords of an input schema digest does not hash
// apart: those mcp-go's ToolInputSchema keeps (hashed as parsed), and
// "$schema", which names the dialect and says nothing of the tool (most
// TypeScript servers write it: hashing it would void their tools' saved
// grants for no change).
var undigested = map[string]bool{"$defs": true, "type": true, "properties": true, "required": true,
	"additionalProperties": true, "$schema": true}

// digest fingerprints a tool definition: what the server says the tool is
// and takes. A change means earlier grants for it no longer apply. The
// input schema is hashed as mcp-go parses it, and the keywords that parse
// drops beside it (only when there are some, $schema aside), so that a
// tool whose schema has none keeps the digest its saved grants were given
// for.
func digest(t mcpgo.Tool) string {
	input := t.InputSchema
	var extra map[string]any
	if t.RawInputSchema != nil {
		input = mcpgo.ToolInputSchema{}
		_ = json.Unmarshal(t.RawInputSchema, &input)
		for k, v := range schemaOf(t.RawInputSchema, nil) {
			if !undigested[k] {
				if extra == nil {
					extra = map[string]any{}
				}
				extra[k] = v
			}
		}
	}
	raw, _ := json.Marshal(struct {
		Name        string                `json:"name"`
		Description string                `json:"description"`
		Input       mcpgo.ToolInputSchema `json:"input"`
		Annotations mcpgo.ToolAnnotation  `json:"annotations"`
		Extra       map[string]any        `json:"input_extra,omitempty"`
	}{t.Name, t.Description, input, t.Annotations, extra})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}
