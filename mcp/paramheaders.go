package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Tool parameters a server marks "x-mcp-header" travel, on the 2026-07-28
// era over streamable HTTP, as Mcp-Param-NAME headers beside the body, so
// that a gateway or a proxy can route on them (SEP-2243). mcp-go mirrors
// them only for tools its own ListTools read, and latch lists tools itself
// (toolslist.go): so latch keeps each tool's bindings and sets the headers
// on its calls. A value that cannot be a header value is refused before
// anything is sent, naming the parameter.

// maxParamHeader bounds one Mcp-Param header's value: servers and proxies
// commonly refuse a header line over 8 KiB, and a larger value would fail
// there with a reason the model could not act on.
const maxParamHeader = 8 << 10

// paramHeaders is whether the connection sends x-mcp-header parameters as
// headers: a stateless-era one over streamable HTTP. Others ignore valid
// annotations.
func (c *conn) paramHeaders() bool {
	return c.streamable && isModern(c.client.ProtocolVersion())
}

// headerBindings are a tool's x-mcp-header parameters, in order of their
// paths, so that the first one refused is always the same.
func headerBindings(t mcpgo.Tool) []mcpgo.ParamHeaderBinding {
	b := mcpgo.ExtractParamHeaderBindings(&t)
	slices.SortFunc(b, func(x, y mcpgo.ParamHeaderBinding) int {
		return strings.Compare(strings.Join(x.Path, "\x00"), strings.Join(y.Path, "\x00"))
	})
	return b
}

// withValidHeaders is tools without those whose x-mcp-header annotations
// break SEP-2243 (empty, not a token, on a type other than string,
// integer or boolean, or the same header twice), which a client must not
// call: each is left out and said, the others kept. On every connection,
// not only where the headers are sent: such a definition is malformed,
// and latch serve offers the tools again over HTTP, through mcp-go's
// server, which panics on one. The schema is checked as the server wrote
// it and as latch offers it, redacted (red): a credential's mark in a
// header name would make it invalid.
func withValidHeaders(tools []mcpgo.Tool, red *redactor, notice func(string)) []mcpgo.Tool {
	kept := tools[:0:0]
	for _, t := range tools {
		err := mcpgo.ValidateParamHeaderAnnotations(&t)
		if err == nil && !headersValid(redactAll(red, schemaOf(t.RawInputSchema, t.InputSchema))) {
			err = errors.New("a header is named after a credential")
		}
		if err != nil {
			notice(fmt.Sprintf("tool %q left out: its x-mcp-header annotations are invalid (%v)", t.Name, err))
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// headersValid reports whether a schema's x-mcp-header annotations are
// valid.
func headersValid(schema map[string]any) bool {
	raw, err := json.Marshal(schema)
	if err != nil {
		return false
	}
	return mcpgo.ValidateParamHeaderAnnotations(&mcpgo.Tool{RawInputSchema: raw}) == nil
}

// paramHeaderError is an argument that cannot travel as the header its
// parameter is bound to: the call is not sent.
type paramHeaderError struct {
	tool, param, header, why string
}

func (e *paramHeaderError) Error() string {
	return fmt.Sprintf("not sent: argument %q of %s cannot be sent as its header %s: %s", e.param, e.tool, e.header, e.why)
}

// callHeaders are the Mcp-Param headers of a call of tool with args, or
// the first argument that cannot be one. An absent or null argument has
// no header.
func callHeaders(tool string, bindings []mcpgo.ParamHeaderBinding, args map[string]any) (http.Header, error) {
	if len(bindings) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for _, b := range bindings {
		v, ok := argumentAt(args, b.Path)
		if !ok || v == nil {
			continue
		}
		fail := func(why string) error {
			return &paramHeaderError{tool: tool, param: strings.Join(b.Path, "."), header: b.HeaderName(), why: why}
		}
		value, why := headerPrimitive(v)
		if why != "" {
			return nil, fail(why)
		}
		enc, ok := mcpgo.EncodeHeaderValue(value)
		if !ok {
			return nil, fail("not a string, an integer or a boolean")
		}
		if len(enc) > maxParamHeader {
			return nil, fail(fmt.Sprintf("%d bytes as a header value, over the %d a server is sure to take", len(enc), maxParamHeader))
		}
		h[b.HeaderName()] = []string{enc} // as written: the name is a token, its case kept
	}
	return h, nil
}

// argumentAt is the argument at path, nested in objects.
func argumentAt(args map[string]any, path []string) (any, bool) {
	var cur any = args
	for _, p := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// headerPrimitive is v as the value a header carries (a string, a
// boolean, an int64), or why it cannot be one. A number must be an
// integer that a JSON reader keeps exactly (|n| < 2^53): the spec allows
// no other.
func headerPrimitive(v any) (any, string) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, "not a JSON value"
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, "not a JSON value"
	}
	switch x := x.(type) {
	case string, bool:
		return x, ""
	case json.Number:
		f, err := x.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53-1 {
			return nil, fmt.Sprintf("%s is not an integer within ±(2^53-1)", x)
		}
		return int64(f), ""
	case map[string]any:
		return nil, "an object (a header carries a string, an integer or a boolean)"
	case []any:
		return nil, "an array (a header carries a string, an integer or a boolean)"
	}
	return nil, "not a string, an integer or a boolean"
}
