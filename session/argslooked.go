package session

import (
	"strings"

	"latch/permissions"
)

// ArgsLookedAt names the arguments of server's tool name (model-facing)
// that the gate's argument rules look at: the approval screens show their
// values whole.
func (s *Session) ArgsLookedAt(server, name string) []string {
	c := permissions.Call{Server: server, Tool: strings.TrimPrefix(name, server+permissions.NamespaceSep), Name: name}
	if s.servers != nil {
		if t, ok := s.servers.Lookup(name); ok {
			c = permissions.Call{Server: t.Server, Tool: t.Original, Name: t.Name}
		}
	}
	return s.gate.ArgsLookedAt(c)
}
