package session

import (
	"latch/mcp"
	"latch/permissions"
)

// asked is a call waiting for the person's answer in the box: where the
// answer goes, and the call as the gate decided it (its real arguments).
type asked struct {
	ch   chan Answer
	call permissions.Call
}

// RuleChoices are the allow rules `A` in the box can save for the asked
// call callID, narrowest first, derived from its real arguments
// (permissions.DeriveRules); none while it is not waiting for an answer.
// A rule that would hold a credential latch knows is never offered: it
// would be written into the config file in the clear, and the box could
// only show it hidden, so not as it would be written. Nor is one whose
// tool's name the config would refuse as naming two servers' tools.
func (s *Session) RuleChoices(callID string) []permissions.RuleSpec {
	s.mu.Lock()
	w, ok := s.asks[callID]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	var out []permissions.RuleSpec
	names := s.ServerNames()
	for _, spec := range permissions.DeriveRules(w.call, s.gate.Home()) {
		// A name that reads as tools of two servers (x___foo with x and
		// x_) is a config error: written, it would stop the next start.
		if len(permissions.Readings(spec.Tool, names)) != 1 {
			continue
		}
		if text := permissions.FormatCompact(spec); mcp.RedactAll(s.servers, text) == text {
			out = append(out, spec)
		}
	}
	return out
}

// AddSavedRule adds to the gate a rule just written into the config file
// (`A` in the box, then a rule): it applies from now on, as it will in
// every later session, which reads it from the file.
func (s *Session) AddSavedRule(r permissions.Rule) {
	s.gate.AddRule(r)
}
