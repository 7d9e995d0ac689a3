package permissions

// DenyingRule returns the deny rule that matches c, if one does, among the
// gate's own rules and extra (the config's rules as they are on disk now,
// read again when a person's approval is acted on): the gate's first,
// then extra's, each set's first deny rule in the order given. Only deny
// rules count: an ask rule leaves a call a person approves approvable,
// and no allow rule lifts a deny.
func (g *Gate) DenyingRule(c Call, extra []Rule) (Rule, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if r, ok := g.rules.decide(c, g.servers); ok && r.Decision == Deny {
		return *r, true
	}
	if len(extra) == 0 {
		return Rule{}, false
	}
	rs := newRuleSet(extra, g.rules.home, g.rules.fold)
	if r, ok := rs.decide(c, g.servers); ok && r.Decision == Deny {
		return *r, true
	}
	return Rule{}, false
}
