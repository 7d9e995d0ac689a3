package mcp

import (
	"context"
	"encoding/json"
	"errors"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Elicitation modes (ElicitRequest.Mode).
const (
	ElicitForm = "form" // fill in the fields of a schema
	ElicitURL  = "url"  // open a URL (a sign-in, a payment) outside latch
)

// Answers to an elicitation (ElicitResponse.Action).
const (
	ElicitAccept  = "accept"  // the person gave what was asked (or opened the URL)
	ElicitDecline = "decline" // the person said no
	ElicitCancel  = "cancel"  // dismissed without a choice, or no one could answer in time
)

// ElicitRequest is a server's elicitation/create, redacted: what it asks
// the person for, and why.
type ElicitRequest struct {
	Mode    string         // ElicitForm or ElicitURL
	Message string         // why the server asks
	Schema  map[string]any // form: the requested schema (see ParseForm)
	URL     string         // url: the URL to open
	ID      string         // url: the server's elicitation id
}

// ElicitResponse is the answer returned to the server.
type ElicitResponse struct {
	Action  string         // ElicitAccept, ElicitDecline or ElicitCancel
	Content map[string]any // a form's values, with ElicitAccept only
}

// ElicitFunc answers a server's elicitation: it must return when ctx ends
// (the server gave up, or the connection closed).
type ElicitFunc func(ctx context.Context, server string, req ElicitRequest) (ElicitResponse, error)

// elicitCapability is what latch declares: both modes.
func elicitCapability() *mcpgo.ElicitationCapability {
	return &mcpgo.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}
}

// elicitHandler answers one connection's elicitation requests through the
// manager's ElicitFunc. It is both mcp-go's client.ElicitationHandler and
// its in-process server.ElicitationHandler.
type elicitHandler struct {
	m      *Manager
	server string
	closed <-chan struct{} // the connection's: a request ends with it
}

// Elicit hands the request, redacted, to the manager's ElicitFunc, and
// its answer back to the server. The request ends when ctx does or the
// connection closes.
func (h elicitHandler) Elicit(ctx context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if h.closed != nil {
		go func() {
			select {
			case <-h.closed:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	r := ElicitRequest{Mode: req.Params.Mode, Message: req.Params.Message, URL: req.Params.URL, ID: req.Params.ElicitationID}
	if r.Mode == "" {
		r.Mode = ElicitForm
	}
	if r.Mode == ElicitForm {
		r.Schema = schemaMap(req.Params.RequestedSchema)
	}
	r = redactAll(h.m.red, r)
	resp, err := h.m.opts.Elicit(ctx, h.server, r)
	if err != nil {
		return nil, errors.New(h.m.red.apply(err.Error()))
	}
	out := &mcpgo.ElicitationResult{ElicitationResponse: mcpgo.ElicitationResponse{
		Action: mcpgo.ElicitationResponseAction(resp.Action)}}
	if resp.Action == ElicitAccept && r.Mode == ElicitForm {
		out.Content = resp.Content
	}
	return out, nil
}

// schemaMap is a requested schema as a JSON object: a server in this
// process may hand over any Go value.
func schemaMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// AddSecret makes the manager redact s from now on, wherever it shows up:
// a value the person typed into a password field of a form. Values
// shorter than four characters are left out (they would blank out common
// words everywhere).
func (m *Manager) AddSecret(s string) {
	if m == nil || len([]rune(trimToken(s))) < 4 {
		return
	}
	m.red.add(s)
}

// elicitHandler is the hooks' handler, ending with this connection.
func (c *conn) elicitHandler(h dialHooks) elicitHandler {
	eh := h.elicit
	eh.closed = c.closed
	return eh
}
