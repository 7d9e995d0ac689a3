package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

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
		if fields, err := ParseForm(r.Schema); err == nil {
			h.m.learnPasswords(h.server, requestTexts(req.Params, schemaMap(req.Params.RequestedSchema)), fields, resp.Content)
		}
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

// minPassword is the shortest form password latch hides: a shorter one
// would blank out common words everywhere.
const minPassword = 4

// learnPasswords hides, from now on and wherever it shows up, what the
// person typed into the password fields of a form they sent. Only the
// person's own secret becomes one: a value found anywhere in what the
// server sent with the request (a default, a choice, a title, the
// message) is the server's, and a server must never choose what latch
// hides from the person. In its place the text says whose it is, so a
// permission box showing it is exact about what will be sent.
func (m *Manager) learnPasswords(server string, sent []string, fields []FormField, content map[string]any) {
	for _, f := range fields {
		v, ok := content[f.Name].(string)
		v = trimToken(v)
		if !ok || !f.Secret || len([]rune(v)) < minPassword || serverSent(sent, v) {
			continue
		}
		m.red.addLabeled(v, passwordLabel(server, f.Name))
	}
}

// serverSent reports whether v appears in any of the server's texts.
func serverSent(sent []string, v string) bool {
	for _, s := range sent {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// plainName is a field name that can be named in a label as it is.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,40}$`)

// passwordLabel is what stands in for a person's password: the server's
// name (from the person's config) and the field's, when it is a plain
// name (the server chose it: it must not be able to write the label).
func passwordLabel(server, field string) string {
	if plainName.MatchString(field) {
		return fmt.Sprintf("«your password for %s's form field %s»", server, field)
	}
	return fmt.Sprintf("«your password for a field of %s's form»", server)
}

// requestTexts is every text a server's request holds: its message, URL
// and id, and every key, string and number of its schema, at any depth.
func requestTexts(p mcpgo.ElicitationParams, schema map[string]any) []string {
	out := []string{p.Message, p.URL, p.ElicitationID}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case float64:
			out = append(out, strconv.FormatFloat(v, 'f', -1, 64), strconv.FormatFloat(v, 'g', -1, 64))
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				out = append(out, k)
				walk(x)
			}
		}
	}
	walk(schema)
	return out
}

// elicitHandler is the hooks' handler, ending with this connection.
func (c *conn) elicitHandler(h dialHooks) elicitHandler {
	eh := h.elicit
	eh.closed = c.closed
	return eh
}
