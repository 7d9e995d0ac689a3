package mcp

// A plain tool call to a stdio server of the handshake's protocol (every
// TypeScript SDK v1 server) is sent on mcp-go's transport directly, not
// through its client's CallTool: that builds the request through its
// tracing and era machinery and decodes the answer three times over
// (a probe, the result with its parts as raw JSON, each part twice), a
// sixth of the gateway's CPU per call. Here the request's bytes are the
// ones CallTool sends, and the answer is decoded once, its plain text
// parts read without a second pass; anything less plain (a part of any
// other shape, no content, an answer asking for input) is read by
// mcp-go's own code, so the result is always the one mcp-go gives.

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// plainIDBase starts the ids of the calls sent here, far from mcp-go's
// client's own (1, 2, 3… on the same transport), so that the two never
// share one; it stays within int32, as some servers read ids.
const plainIDBase = 1_000_000_000

// plainStdio says whether a call on c can be sent here: a stdio server
// of the handshake's protocol (a 2026-07-28 one carries the client's
// _meta on every request, which mcp-go's client adds).
func (c *conn) plainStdio() bool {
	return c.proc != nil && !isModern(c.client.ProtocolVersion())
}

// callStdio sends req as mcp-go's client would (CallTool), with the
// same request on the wire, the same errors and the same cancellation
// notice, and returns the result mcp-go's parsing gives.
func (c *conn) callStdio(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	params, err := callParams(req.Params)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, transport.NewError(err) // not sent: nothing to cancel
	}
	tr := c.client.GetTransport()
	request := transport.JSONRPCRequest{JSONRPC: mcpgo.JSONRPC_VERSION,
		ID: mcpgo.NewRequestId(plainIDBase + c.ids.Add(1)), Method: string(mcpgo.MethodToolsCall), Params: params}
	resp, err := tr.SendRequest(ctx, request)
	if err != nil {
		if ctx.Err() != nil {
			cancelNotice(ctx, tr, request.ID)
		}
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	res, err := parseCallResult(resp.Result)
	if err == nil && res.NeedsInput() {
		// Not of this protocol, but mcp-go's client answers it: it
		// takes the call from the start (an answer asking for input
		// means the server did nothing yet) and does the round trips.
		return c.client.CallTool(ctx, req)
	}
	return res, err
}

// cancelNotice tells the server a request was given up, as mcp-go's
// client does (notifications/cancelled naming it, with the context's
// error as the reason), off the caller's path and best effort.
func cancelNotice(ctx context.Context, tr transport.Interface, id mcpgo.RequestId) {
	n := mcpgo.JSONRPCNotification{JSONRPC: mcpgo.JSONRPC_VERSION, Notification: mcpgo.Notification{
		Method: string(mcpgo.MethodNotificationCancelled),
		Params: mcpgo.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": ctx.Err().Error()}},
	}}
	ctx = context.WithoutCancel(ctx)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_ = tr.SendNotification(ctx, n)
	}()
}

// callParams is p as mcp-go's client writes a plain call's params (name,
// arguments, _meta with only a progress token), made without going
// through mcp.Meta's map; anything else is marshalled by mcp-go.
func callParams(p mcpgo.CallToolParams) (json.RawMessage, error) {
	if p.Task != nil || p.RawArguments != nil || p.Arguments == nil || p.InputResponses != nil || p.RequestState != "" ||
		p.Meta != nil && (len(p.Meta.AdditionalFields) > 0 || p.Meta.ProgressToken == nil) {
		return json.Marshal(p)
	}
	name, err := json.Marshal(p.Name)
	if err != nil {
		return nil, err
	}
	args, err := json.Marshal(p.Arguments)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(name)+len(args)+64)
	b = append(append(append(b, `{"name":`...), name...), `,"arguments":`...)
	b = append(b, args...)
	if p.Meta != nil {
		tok, err := json.Marshal(p.Meta.ProgressToken)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, `,"_meta":{"progressToken":`...), tok...), '}')
	}
	return append(b, '}'), nil
}

// callResult is a tools/call result as mcp-go's CallToolResult reads it
// (its UnmarshalJSON's fields, the same names and types).
type callResult struct {
	Meta              *mcpgo.Meta         `json:"_meta,omitempty"`
	ResultType        mcpgo.ResultType    `json:"resultType,omitempty"`
	Content           []json.RawMessage   `json:"content"`
	StructuredContent json.RawMessage     `json:"structuredContent,omitempty"`
	IsError           bool                `json:"isError,omitempty"`
	InputRequests     mcpgo.InputRequests `json:"inputRequests,omitempty"`
	RequestState      string              `json:"requestState,omitempty"`
}

// parseCallResult is mcpgo.ParseCallToolResult(raw), decoding raw once:
// a result it reads differently (no content, content that is null, a
// part that fails) is handed to mcp-go's, for its result or its error.
func parseCallResult(raw json.RawMessage) (*mcpgo.CallToolResult, error) {
	var r callResult
	if json.Unmarshal(raw, &r) != nil || r.Content == nil {
		return mcpgo.ParseCallToolResult(&raw)
	}
	out := &mcpgo.CallToolResult{Result: mcpgo.Result{Meta: r.Meta, ResultType: r.ResultType}, IsError: r.IsError}
	out.InputRequests, out.RequestState = r.InputRequests, r.RequestState
	if len(r.Content) > 0 {
		out.Content = make([]mcpgo.Content, len(r.Content))
	}
	for i, item := range r.Content {
		if text, ok := plainTextPart(item); ok {
			out.Content[i] = mcpgo.TextContent{Type: mcpgo.ContentTypeText, Text: text}
			continue
		}
		part, err := mcpgo.UnmarshalContent(item)
		if err != nil {
			return mcpgo.ParseCallToolResult(&raw)
		}
		out.Content[i] = part
	}
	if len(r.StructuredContent) > 0 {
		out.RawStructuredContent = append(json.RawMessage(nil), r.StructuredContent...)
		if json.Unmarshal(r.StructuredContent, &out.StructuredContent) != nil {
			return mcpgo.ParseCallToolResult(&raw)
		}
	}
	return out, nil
}

// plainTextPart reads a content part (valid JSON, as decoding its result
// checked) that is an object of exactly the keys "type", being "text",
// and "text", a string, each once, spelled so: the part mcp-go reads as a
// TextContent with nothing else set. Any other part is not ok.
func plainTextPart(item []byte) (string, bool) {
	var text []byte
	typed, seen := false, false
	rest := skipSpace(item)
	if len(rest) == 0 || rest[0] != '{' {
		return "", false
	}
	rest = rest[1:]
	for range 2 {
		key, after, ok := jsonString(skipSpace(rest))
		if !ok {
			return "", false
		}
		after = skipSpace(after)
		if len(after) == 0 || after[0] != ':' {
			return "", false
		}
		val, after, ok := jsonString(skipSpace(after[1:]))
		if !ok {
			return "", false
		}
		switch string(key) {
		case `"type"`:
			if typed || string(val) != `"text"` {
				return "", false
			}
			typed = true
		case `"text"`:
			if seen {
				return "", false
			}
			text, seen = val, true
		default:
			return "", false
		}
		rest = skipSpace(after)
		if len(rest) == 0 {
			return "", false
		}
		if rest[0] == ',' {
			rest = rest[1:]
		}
	}
	if !typed || !seen || len(rest) == 0 || rest[0] != '}' || len(skipSpace(rest[1:])) != 0 {
		return "", false
	}
	inner := text[1 : len(text)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(text, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonString splits a JSON string (quotes included) off the front of b,
// which is valid JSON from there on; not ok when b does not start with
// one.
func jsonString(b []byte) (str, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return b[:i+1], b[i+1:], true
		}
	}
	return nil, nil, false
}

// skipSpace is b after JSON's white space.
func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
