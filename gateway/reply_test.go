package gateway

import (
	"bytes"
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestResultJSONAsMCPGoWritesIt: a result is written to the byte as
// mcp-go's MarshalJSON writes it, whatever of it is present.
func TestResultJSONAsMCPGoWritesIt(t *testing.T) {
	meta := &mcpgo.Meta{AdditionalFields: map[string]any{"k": "<v&>"}}
	meta.SetServerInfo(mcpgo.Implementation{Name: "latch", Version: "1"})
	annotated := mcpgo.NewTextContent("annotated")
	annotated.Annotations = &mcpgo.Annotations{Audience: []mcpgo.Role{mcpgo.RoleUser}}
	results := map[string]*mcpgo.CallToolResult{
		"empty":      {},
		"no content": {Content: []mcpgo.Content{}},
		"text":       mcpgo.NewToolResultText("hello <b>&</b> \u2028 bad \xff"),
		"error":      mcpgo.NewToolResultError("no"),
		"parts": {Content: []mcpgo.Content{annotated, mcpgo.NewImageContent("aGk=", "image/png"), nil,
			mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{URI: "file:///a", Text: "x"})}},
		"structured":     {Content: []mcpgo.Content{mcpgo.NewTextContent("{}")}, StructuredContent: map[string]any{"z": 1, "a": []any{"<"}}},
		"raw structured": {Content: []mcpgo.Content{}, StructuredContent: map[string]any{"no": 1}, RawStructuredContent: json.RawMessage(`{ "b" : "<x>", "a":1 }`)},
		"modern": {Result: mcpgo.Result{Meta: meta, ResultType: mcpgo.ResultTypeComplete},
			Content: []mcpgo.Content{mcpgo.NewTextContent("t")}, StructuredContent: []any{1, 2}, IsError: true},
		"input required": {Result: mcpgo.Result{ResultType: mcpgo.ResultTypeInputRequired},
			MultiRoundTripResult: mcpgo.MultiRoundTripResult{RequestState: "state",
				InputRequests: mcpgo.InputRequests{"r": {Method: mcpgo.MethodListRoots}}}},
	}
	for name, r := range results {
		want, werr := r.MarshalJSON()
		got, gerr := resultJSON(r, nil)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Errorf("%s:\n got %s (%v)\nwant %s (%v)", name, got, gerr, want, werr)
		}
	}
	bad := &mcpgo.CallToolResult{RawStructuredContent: json.RawMessage(`{`)}
	if _, err := resultJSON(bad, nil); err == nil {
		t.Error("a result that cannot be encoded was written")
	}
}
