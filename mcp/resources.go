package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Resource is one resource a server lists, redacted.
type Resource struct {
	Server      string
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        int64 // bytes, when the server says (0: unknown)
}

// ResourceTemplate is one resource template a server lists (RFC 6570),
// redacted.
type ResourceTemplate struct {
	Server      string
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceContents is one part of a read resource: text (redacted, capped)
// or a blob's bytes.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte // decoded; set when IsBlob
	IsBlob   bool
	Size     int  // bytes of the text or blob as the server sent it
	Cut      bool // Text was cut to the cap
}

// ResourceCaps is what a connected server offers around its resources.
type ResourceCaps struct {
	Subscribe   bool // resources/subscribe and notifications/resources/updated
	ListChanged bool // notifications/resources/list_changed
	Completions bool // completion/complete (template variables)
}

// ErrNoResources is returned for a server without the resources capability.
var ErrNoResources = errors.New("offers no resources")

// resourceConn is live for a server that offers resources.
func (m *Manager) resourceConn(name string) (*server, *conn, ResourceCaps, error) {
	s, c, err := m.live(name)
	if err != nil {
		return nil, nil, ResourceCaps{}, err
	}
	caps := c.client.GetServerCapabilities()
	if caps.Resources == nil {
		return nil, nil, ResourceCaps{}, fmt.Errorf("%s %w (no resources capability)", name, ErrNoResources)
	}
	return s, c, ResourceCaps{Subscribe: caps.Resources.Subscribe, ListChanged: caps.Resources.ListChanged,
		Completions: caps.Completions != nil}, nil
}

// ResourceServers lists the connected servers that offer resources, sorted.
func (m *Manager) ResourceServers() []string {
	var out []string
	for _, n := range m.order {
		if _, _, _, err := m.resourceConn(n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// ResourceCapabilities says what a connected server offers around its
// resources; an error when it offers none or is not connected.
func (m *Manager) ResourceCapabilities(name string) (ResourceCaps, error) {
	_, _, caps, err := m.resourceConn(name)
	return caps, err
}

// resourceCtx bounds a request to a server by its timeout.
func resourceCtx(ctx context.Context, s *server) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.timeout())
}

// resourceError is a failed resource request, said for the user: the
// server, what was asked, and the server's reason, redacted.
func (m *Manager) resourceError(name, what string, err error) error {
	return fmt.Errorf("%s: %s: %s", name, what, m.red.apply(shortError(err)))
}

// ListResources lists every page of a server's resources, sorted by URI.
func (m *Manager) ListResources(ctx context.Context, name string) ([]Resource, error) {
	s, c, _, err := m.resourceConn(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := resourceCtx(ctx, s)
	defer cancel()
	res, err := c.client.ListResources(ctx, mcpgo.ListResourcesRequest{})
	if err != nil {
		return nil, m.resourceError(name, "resources/list", err)
	}
	out := make([]Resource, 0, len(res.Resources))
	for _, r := range res.Resources {
		x := Resource{Server: name, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
		if r.Size != nil {
			x.Size = *r.Size
		}
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return redactAll(m.red, out), nil
}

// ListResourceTemplates lists every page of a server's resource
// templates, sorted by template.
func (m *Manager) ListResourceTemplates(ctx context.Context, name string) ([]ResourceTemplate, error) {
	s, c, _, err := m.resourceConn(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := resourceCtx(ctx, s)
	defer cancel()
	res, err := c.client.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	if err != nil {
		return nil, m.resourceError(name, "resources/templates/list", err)
	}
	out := make([]ResourceTemplate, 0, len(res.ResourceTemplates))
	for _, t := range res.ResourceTemplates {
		x := ResourceTemplate{Server: name, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType}
		if t.URITemplate != nil && t.URITemplate.Template != nil {
			x.URITemplate = t.URITemplate.Raw()
		}
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].URITemplate < out[j].URITemplate })
	return redactAll(m.red, out), nil
}

// ReadResource reads a resource. Each text part is redacted, then cut to
// maxText bytes (0: no cap); a blob is decoded.
func (m *Manager) ReadResource(ctx context.Context, name, uri string, maxText int) ([]ResourceContents, error) {
	s, c, _, err := m.resourceConn(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := resourceCtx(ctx, s)
	defer cancel()
	var req mcpgo.ReadResourceRequest
	req.Params.URI = uri
	res, err := c.client.ReadResource(ctx, req)
	if err != nil {
		return nil, m.resourceError(name, "cannot read "+uri, err)
	}
	out := make([]ResourceContents, 0, len(res.Contents))
	for _, rc := range res.Contents {
		x, err := m.contents(rc, maxText)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", name, uri, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// contents turns one part of a read into ours.
func (m *Manager) contents(rc mcpgo.ResourceContents, maxText int) (ResourceContents, error) {
	switch rc := rc.(type) {
	case mcpgo.TextResourceContents:
		text := m.red.apply(rc.Text)
		x := ResourceContents{URI: m.red.apply(rc.URI), MIMEType: m.red.apply(rc.MIMEType), Size: len(text)}
		if maxText > 0 && len(text) > maxText {
			text, x.Cut = m.red.cut(text, maxText), true
		}
		x.Text = text
		return x, nil
	case mcpgo.BlobResourceContents:
		b, err := base64.StdEncoding.DecodeString(rc.Blob)
		if err != nil {
			return ResourceContents{}, errors.New("a blob that is not base64")
		}
		return ResourceContents{URI: m.red.apply(rc.URI), MIMEType: m.red.apply(rc.MIMEType), Blob: b, IsBlob: true, Size: len(b)}, nil
	}
	return ResourceContents{}, fmt.Errorf("contents of an unknown kind (%T)", rc)
}

// Subscribe asks a server for notifications/resources/updated about a
// resource (resources/subscribe), if it offers that.
func (m *Manager) Subscribe(ctx context.Context, name, uri string) error {
	return m.subscription(ctx, name, uri, true)
}

// Unsubscribe undoes Subscribe (resources/unsubscribe).
func (m *Manager) Unsubscribe(ctx context.Context, name, uri string) error {
	return m.subscription(ctx, name, uri, false)
}

func (m *Manager) subscription(ctx context.Context, name, uri string, on bool) error {
	s, c, caps, err := m.resourceConn(name)
	if err != nil {
		return err
	}
	if !caps.Subscribe {
		return fmt.Errorf("%s does not offer subscriptions to its resources (no resources.subscribe capability)", name)
	}
	ctx, cancel := resourceCtx(ctx, s)
	defer cancel()
	if on {
		var req mcpgo.SubscribeRequest
		req.Params.URI = uri
		err = c.client.Subscribe(ctx, req) //nolint:staticcheck // deprecated: on the stateless era it only records the URI for listen
	} else {
		var req mcpgo.UnsubscribeRequest
		req.Params.URI = uri
		err = c.client.Unsubscribe(ctx, req) //nolint:staticcheck // as Subscribe
	}
	if err != nil {
		verb := "resources/subscribe"
		if !on {
			verb = "resources/unsubscribe"
		}
		return m.resourceError(name, verb+" "+uri, err)
	}
	// The stateless era has no resources/subscribe: the URI joins the
	// filter of a new subscriptions/listen stream (era.go).
	c.listen(ctx)
	return nil
}

// CompleteResource asks a server for values of a template's variable arg
// that start with value (completion/complete with a ref/resource), given
// the variables filled so far. A server without the completions
// capability is not asked: it returns nothing.
func (m *Manager) CompleteResource(ctx context.Context, name, template, arg, value string, filled map[string]string) ([]string, error) {
	s, c, caps, err := m.resourceConn(name)
	if err != nil {
		return nil, err
	}
	if !caps.Completions {
		return nil, nil
	}
	ctx, cancel := resourceCtx(ctx, s)
	defer cancel()
	var req mcpgo.CompleteRequest
	req.Params.Ref = mcpgo.ResourceReference{Type: "ref/resource", URI: template}
	req.Params.Argument = mcpgo.CompleteArgument{Name: arg, Value: value}
	req.Params.Context = mcpgo.CompleteContext{Arguments: filled}
	res, err := c.client.Complete(ctx, req)
	if err != nil {
		return nil, m.resourceError(name, "completion/complete "+template+" "+arg, err)
	}
	vals := res.Completion.Values
	if len(vals) > 100 {
		vals = vals[:100]
	}
	return redactAll(m.red, append([]string(nil), vals...)), nil
}

// resourceNote handles notifications/resources/updated and
// notifications/resources/list_changed. It runs on the transport's read
// loop: it only reports them, never calling the server. Every update is
// reported: the session shows only those of the resources watched, paced.
func (m *Manager) resourceNote(s *server, gen int, n mcpgo.JSONRPCNotification) {
	s.mu.Lock()
	current := s.gen == gen
	s.mu.Unlock()
	if !current {
		return
	}
	switch n.Method {
	case mcpgo.MethodNotificationResourceUpdated:
		uri, _ := n.Params.AdditionalFields["uri"].(string)
		if uri == "" {
			return
		}
		m.emit(ResourceUpdated{Server: s.cfg.Name, URI: uri})
	case mcpgo.MethodNotificationResourcesListChanged:
		m.emit(ResourcesChanged{Server: s.cfg.Name})
	}
}

// ResourceUpdated says a server told of a change to a resource
// (notifications/resources/updated); one latch subscribed to, or any
// other a server names.
type ResourceUpdated struct {
	Server string
	URI    string
}

// ResourcesChanged says a server's list of resources changed
// (notifications/resources/list_changed).
type ResourcesChanged struct{ Server string }

func (e ResourceUpdated) server() string  { return e.Server }
func (e ResourcesChanged) server() string { return e.Server }

// embeddedRef is the reference to a resource a tool's result embeds.
func embeddedRef(c mcpgo.EmbeddedResource) ResourceRef {
	switch r := c.Resource.(type) {
	case mcpgo.TextResourceContents:
		return ResourceRef{URI: r.URI, MIMEType: r.MIMEType, Embedded: true}
	case mcpgo.BlobResourceContents:
		return ResourceRef{URI: r.URI, MIMEType: r.MIMEType, Embedded: true}
	}
	return ResourceRef{Embedded: true}
}

// writeEmbedded writes an embedded resource into a tool result's text:
// its text, or a line describing a blob.
func writeEmbedded(b *strings.Builder, c mcpgo.EmbeddedResource) {
	switch r := c.Resource.(type) {
	case mcpgo.TextResourceContents:
		b.WriteString(r.Text)
	case mcpgo.BlobResourceContents:
		fmt.Fprintf(b, "[embedded resource: %s, %s, %d bytes base64]", r.URI, r.MIMEType, len(r.Blob))
	default:
		b.WriteString("[embedded resource]")
	}
}
