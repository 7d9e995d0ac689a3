package mcp

import (
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// A tool read raw keeps the digest mcp-go's parse gave it (its saved
// grants still apply) unless its schema has keywords that parse dropped,
// $schema aside; a change in one of those is a new definition.
func TestToolDigestOfRawSchemas(t *testing.T) {
	parsed := func(raw string) string {
		var tool mcpgo.Tool
		if err := json.Unmarshal([]byte(raw), &tool); err != nil {
			t.Fatal(err)
		}
		return digest(tool)
	}
	read := func(raw string) string {
		tool, err := rawTool(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		return digest(tool)
	}
	const plain = `{"name":"w","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}}`
	const dialect = `{"name":"w","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}}`
	const bounded = `{"name":"w","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"maxProperties":1}}`
	const bounded2 = `{"name":"w","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"maxProperties":2}}`
	if read(plain) != parsed(plain) || read(dialect) != parsed(dialect) {
		t.Errorf("a schema with no keyword beyond mcp-go's (or only $schema) changed its digest")
	}
	if read(bounded) == parsed(bounded) || read(bounded) == read(bounded2) {
		t.Errorf("a keyword mcp-go drops does not count in the digest")
	}
}
