package session

import "latch/permissions"

// explainReadOnly says, the first time in a session that read_only mode
// denies a call, what the mode is and how to let the tool run: a person
// new to latch meets the mode there, and a server that calls its tools
// harmless changes nothing. The way out differs with no one to ask (-p):
// only --allow, since ask mode would deny as well.
func (s *Session) explainReadOnly(c *toolCall, v permissions.Verdict) {
	if v.Decision != permissions.Deny || v.Mode != permissions.ReadOnly || v.By != permissions.ByPolicy || c.perm.Name == "" ||
		v.Rule != "" { // a rule's denial names the rule; /allow would not lift it
		return
	}
	s.mu.Lock()
	said := s.readOnlySaid
	s.readOnlySaid = true
	s.mu.Unlock()
	if said {
		return
	}
	const mode = "read_only mode: only allow-listed tools run, whatever a server says about its tools. "
	name := c.perm.Name
	text := mode + "To let " + name + " run: /allow " + name + " (this session; --always keeps it), or " +
		s.askCommand(c.perm.Server) + " to be asked before each call that is not allow-listed."
	if s.noOne {
		text = mode + "To let " + name + " run, run latch again with --allow " + name +
			" (repeatable); -p asks no one, so --mode ask would deny it too."
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: text})
}

// askCommand is the command that turns asking on for server's calls: its
// own mode when it has one, else the global one.
func (s *Session) askCommand(server string) string {
	if _, ok := s.gate.ServerMode(server); ok {
		return "/mode " + server + " ask"
	}
	return "/mode ask"
}
