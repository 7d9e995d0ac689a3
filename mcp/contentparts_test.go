package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestContentPartsAsEncodingGivesThem: the parts a gateway passes on
// are those encoding each part and decoding it would give, text parts
// (made without either) included: odd text, invalid UTF-8, annotated
// and other parts alike.
func TestContentPartsAsEncodingGivesThem(t *testing.T) {
	texts := []string{"", "hello", "<b>&amp;</b>", "line\nbreak\t\"quoted\"\\", "\u2028\u2029 é 日本 🙂", "\x00\x1f", "bad \xff\xfe utf-8", "{\"a\":1}"}
	var cs []mcpgo.Content
	for _, s := range texts {
		cs = append(cs, mcpgo.NewTextContent(s))
	}
	annotated := mcpgo.NewTextContent("annotated")
	annotated.Annotations = &mcpgo.Annotations{Priority: new(0.5)}
	withMeta := mcpgo.NewTextContent("meta")
	withMeta.Meta = &mcpgo.Meta{AdditionalFields: map[string]any{"k": "v"}}
	cs = append(cs, annotated, withMeta, mcpgo.TextContent{Text: "no type"}, mcpgo.NewImageContent("aGk=", "image/png"))
	var want []map[string]any
	for _, c := range cs {
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var part map[string]any
		if err := json.Unmarshal(raw, &part); err != nil {
			t.Fatal(err)
		}
		want = append(want, part)
	}
	if got := contentParts(cs); !reflect.DeepEqual(got, want) {
		t.Errorf("contentParts:\n got %#v\nwant %#v", got, want)
	}
}
