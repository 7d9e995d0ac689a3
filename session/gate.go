package session

import (
	"fmt"

	"latch/permissions"
)

// Mode is the global permission mode.
func (s *Session) Mode() permissions.Mode { return s.gate.Mode() }

// ServerMode is a server's mode and whether it overrides the global one.
func (s *Session) ServerMode(server string) (permissions.Mode, bool) {
	return s.gate.ServerMode(server)
}

// SetMode changes the global permission mode (the person at the keyboard).
func (s *Session) SetMode(m permissions.Mode) {
	s.gate.SetMode(m)
	s.publishSettings()
}

// SetServerMode changes one server's mode.
func (s *Session) SetServerMode(server string, m permissions.Mode) error {
	if !s.hasServer(server) {
		return fmt.Errorf("no server %q", server)
	}
	s.gate.SetServerMode(server, m)
	s.publishSettings()
	return nil
}

// AllowList lists every allow-list entry and where it came from.
func (s *Session) AllowList() []permissions.Entry { return s.gate.AllowList() }

// Grant allows a tool (by its model-facing name) for the rest of the
// session, tied to its current definition.
func (s *Session) Grant(name string) error {
	if s.servers == nil {
		return errNoServers
	}
	t, ok := s.servers.Lookup(name)
	if !ok {
		return fmt.Errorf("no tool %q among the connected servers' tools (/tools lists them)", name)
	}
	s.grant(permissions.Call{Server: t.Server, Tool: t.Original, Name: t.Name, Digest: t.Digest})
	return nil
}

func (s *Session) hasServer(name string) bool {
	for _, n := range s.ServerNames() {
		if n == name {
			return true
		}
	}
	return false
}

// toolsChanged drops session grants of tools whose definition changed.
func (s *Session) toolsChanged(changed []string) {
	for _, name := range changed {
		t, ok := s.servers.Lookup(name)
		if !ok {
			continue
		}
		for _, dropped := range s.gate.ToolChanged(name, t.Digest) {
			s.mu.Lock()
			delete(s.set.grants, dropped)
			s.mu.Unlock()
			s.publishSettings()
			s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
				"%s changed its definition: the session grant for it was dropped (/allow %s grants it again)", dropped, dropped)})
		}
	}
}
