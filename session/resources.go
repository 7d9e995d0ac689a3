package session

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"latch/mcp"
)

// Resource is one resource a server lists (see mcp.Resource).
type Resource = mcp.Resource

// ResourceTemplate is one resource template a server lists (see
// mcp.ResourceTemplate).
type ResourceTemplate = mcp.ResourceTemplate

// Event types of resources.
const (
	TypeAttachment       = "attachment"
	TypeResourceUpdated  = "resource_updated"
	TypeResourcesChanged = "resources_changed"
)

// ResourceUpdatedEvent says a server told of a change to a resource the
// person watches (/resources SERVER watch URI).
type ResourceUpdatedEvent struct {
	Header
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// ResourcesChangedEvent says a server's list of resources changed.
type ResourcesChangedEvent struct {
	Header
	Server string `json:"server"`
}

// ResourceListing is what a server offers as resources: its resources and
// templates, whether it takes subscriptions and completes template
// variables, the resources watched this session, and how many updates
// of resources not watched it sent (ignored).
type ResourceListing struct {
	Server      string
	Resources   []Resource
	Templates   []ResourceTemplate
	Subscribe   bool
	Completions bool
	Watched     []string
	Ignored     int
}

// ResourceServers lists the connected servers that offer resources.
func (s *Session) ResourceServers() []string {
	if s.servers == nil {
		return nil
	}
	return s.servers.ResourceServers()
}

// ListResources lists a server's resources and templates (every page). It
// asks the server: run it in a command.
func (s *Session) ListResources(ctx context.Context, server string) (ResourceListing, error) {
	if s.servers == nil {
		return ResourceListing{}, errNoServers
	}
	caps, err := s.servers.ResourceCapabilities(server)
	if err != nil {
		return ResourceListing{}, err
	}
	rs, err := s.servers.ListResources(ctx, server)
	if err != nil {
		return ResourceListing{}, err
	}
	ts, err := s.servers.ListResourceTemplates(ctx, server)
	if err != nil {
		return ResourceListing{}, err
	}
	return ResourceListing{Server: server, Resources: rs, Templates: ts, Subscribe: caps.Subscribe,
		Completions: caps.Completions, Watched: s.watched.list(server), Ignored: s.watched.ignored(server)}, nil
}

// WatchResource subscribes to a resource's updates (resources/subscribe):
// they are published as ResourceUpdatedEvents, paced (see watches). It
// asks the server: run it in a command.
func (s *Session) WatchResource(ctx context.Context, server, uri string) error {
	if s.servers == nil {
		return errNoServers
	}
	was := slices.Contains(s.watched.list(server), uri)
	s.watched.set(server, uri, true) // before: an update may follow the answer at once
	if err := s.servers.Subscribe(ctx, server, uri); err != nil {
		if !was {
			s.watched.set(server, uri, false)
		}
		return err
	}
	return nil
}

// rewatch subscribes again, on a server's new connection, to the
// resources watched on its last one (a reconnect, a token rotated with
// /connect): what cannot be watched again is dropped from the list, with
// a notice naming it.
func (s *Session) rewatch(server string) {
	uris := s.watched.list(server)
	if len(uris) == 0 || s.servers == nil {
		return
	}
	var failed []string
	for _, uri := range uris {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := s.servers.Subscribe(ctx, server, uri)
		cancel()
		if err != nil {
			s.watched.set(server, uri, false)
			failed = append(failed, uri+" ("+err.Error()+")")
		}
	}
	n := len(uris) - len(failed)
	text := fmt.Sprintf("%s reconnected: watching %d resources again", server, n)
	if n == 1 {
		text = server + " reconnected: watching 1 resource again"
	}
	if len(failed) > 0 {
		text += "; no longer watched: " + strings.Join(failed, ", ")
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: text})
}

// UnwatchResource undoes WatchResource (resources/unsubscribe).
func (s *Session) UnwatchResource(ctx context.Context, server, uri string) error {
	if s.servers == nil {
		return errNoServers
	}
	if !slices.Contains(s.watched.list(server), uri) {
		return &UserError{Msg: "not watched: " + server + " " + uri + " (/resources " + server + " lists what is)"}
	}
	if err := s.servers.Unsubscribe(ctx, server, uri); err != nil {
		return err
	}
	s.watched.set(server, uri, false)
	return nil
}

// CompleteResource asks a server for the values of a template's variable
// that start with value (completion/complete), given the variables filled
// so far; nothing when the server does not complete. Run it in a command.
func (s *Session) CompleteResource(ctx context.Context, server, template, arg, value string, filled map[string]string) ([]string, error) {
	if s.servers == nil {
		return nil, errNoServers
	}
	return s.servers.CompleteResource(ctx, server, template, arg, value, filled)
}

// resourceEvent turns the manager's resource events into session events:
// an update only of a resource watched, paced (see watches).
func (s *Session) resourceEvent(e mcp.Event) {
	switch e := e.(type) {
	case mcp.ResourceUpdated:
		s.watched.updated(e.Server, e.URI, s.publishUpdate)
	case mcp.ResourcesChanged:
		s.publish(&ResourcesChangedEvent{Header: s.header(TypeResourcesChanged), Server: e.Server})
	}
}

// publishUpdate publishes a watched resource's update, unless the session
// is closing.
func (s *Session) publishUpdate(server, uri string) {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if !closing {
		s.publish(&ResourceUpdatedEvent{Header: s.header(TypeResourceUpdated), Server: server, URI: uri})
	}
}
