package gateway

import (
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// resultJSON is a tool call's result as mcp-go encodes it (its
// MarshalJSON: a map of the fields present, its keys in order) to the
// byte, written field by field without the map, its sort and the []any
// of the content. meta, when not nil, is r's _meta encoded already
// (completeEncoded), and r.Meta is not read.
func resultJSON(r *mcpgo.CallToolResult, meta []byte) ([]byte, error) {
	b := make([]byte, 0, 256)
	var err error
	field := func(key string, v any) {
		if err != nil {
			return
		}
		var raw []byte
		if raw, err = json.Marshal(v); err != nil {
			return
		}
		b = append(b, ',', '"')
		b = append(append(b, key...), '"', ':')
		b = append(b, raw...)
	}
	switch {
	case meta != nil:
		b = append(append(b, `,"_meta":`...), meta...)
	case r.Meta != nil:
		field("_meta", r.Meta)
	}
	b = append(b, `,"content":[`...)
	for i, c := range r.Content {
		raw, cerr := json.Marshal(c)
		if cerr != nil {
			return nil, cerr
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, raw...)
	}
	b = append(b, ']')
	if len(r.InputRequests) > 0 {
		field("inputRequests", r.InputRequests)
	}
	if r.IsError {
		field("isError", true)
	}
	if r.RequestState != "" {
		field("requestState", r.RequestState)
	}
	if r.ResultType != "" {
		field("resultType", r.ResultType)
	}
	if len(r.RawStructuredContent) > 0 {
		field("structuredContent", r.RawStructuredContent)
	} else if r.StructuredContent != nil {
		field("structuredContent", r.StructuredContent)
	}
	if err != nil {
		return nil, err
	}
	b[0] = '{'
	return append(b, '}'), nil
}
