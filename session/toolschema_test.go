package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"latch/mcp"
	"latch/session"
	"latch/session/ollamatest"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// schemaTools are tools whose schemas use what Ollama's request types do
// not hold: the conformance suite's JSON Schema 2020-12 fixture (a $ref,
// an $anchor in $defs, allOf/anyOf, if/then/else, additionalProperties),
// a Python server's (a title on everything, a default), and one with a
// property whose description is not a string.
var schemaTools = map[string]string{
	"contact": `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
		"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},
			"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string","pattern":"^[0-9+ ]+$"},
			"email":{"type":"string","format":"email"},"kind":{"const":"person"}},
		"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
		"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
		"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`,
	"py": `{"title":"pyArguments","type":"object","required":["a"],
		"properties":{"a":{"title":"A","type":"integer"},"b":{"title":"B","type":"integer","default":2}}}`,
	"odd": `{"type":"object","properties":{"weird":{"type":"string","description":5},"plain":{"type":"string"}}}`,
}

// TestSchemasReachTheModelAsWritten: what the model is offered for each
// tool (the chat request as Ollama decodes it) holds every keyword the
// server wrote but its title and $schema: those Ollama's types hold in
// place, the others as JSON in the description beside them; no $ref is
// resolved, and one odd property does not cost the others.
func TestSchemasReachTheModelAsWritten(t *testing.T) {
	srv := mcpserver.NewMCPServer("schemas", "1.0.0")
	for name, schema := range schemaTools {
		srv.AddTool(mcpgo.NewToolWithRawSchema(name, "the "+name+" tool", json.RawMessage(schema)),
			func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText("ok"), nil
			})
	}
	h := newElicitHarness(t, session.ServerConfig{Name: "srv", Transport: mcp.TransportInProcess, InProcess: srv}, false)
	h.ol.Script(ollamatest.TextTurn("ok"))
	send(t, h.s, "hi")
	h.r.turn()
	offered := map[string]string{}
	for _, tool := range h.ol.Requests()[0].Tools {
		raw, err := json.Marshal(tool.Function)
		if err != nil {
			t.Fatal(err)
		}
		offered[tool.Function.Name] = string(raw)
	}

	contact := offered["srv__contact"]
	for _, want := range []string{
		`"$anchor":"addressDef"`, // in $defs, held whole
		`"enum":["phone","email"]`,
		`"enum":["person"]`, // a const is an enum of one
		`(JSON Schema: {\"$ref\":\"#/$defs/address\"})`,
		`(JSON Schema: {\"pattern\":\"^[0-9+ ]+$\"})`,
		`(JSON Schema: {\"format\":\"email\"})`,
		`\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}]`,
		`\"additionalProperties\":false`, `\"if\":{`, `\"then\":{\"required\":[\"phone\"]}`, `\"else\":{\"required\":[\"email\"]}`,
	} {
		if !strings.Contains(contact, want) {
			t.Errorf("the model is not offered %s of contact's schema:\n%s", want, contact)
		}
	}
	if strings.Contains(contact, "$schema") {
		t.Errorf("$schema reaches the model:\n%s", contact)
	}
	py := offered["srv__py"]
	if strings.Contains(py, `"title`) || !strings.Contains(py, `"description":"(JSON Schema: {\"default\":2})"`) ||
		!strings.Contains(py, `"required":["a"]`) {
		t.Errorf("py's schema, its titles left out and its default kept:\n%s", py)
	}
	odd := offered["srv__odd"]
	if !strings.Contains(odd, `"plain":{"type":"string"}`) || !strings.Contains(odd, `(JSON Schema: {\"description\":5})`) {
		t.Errorf("an odd property cost the others, or was lost:\n%s", odd)
	}
}
