package permissions

// ruleMatch is what a gate's argument rules say of one call: the rule
// that decides it, if any.
type ruleMatch struct {
	rule *Rule
	ok   bool
}

// matchRules matches c against the gate's argument rules without holding
// the gate's lock, and returns with the lock read-held (the caller
// unlocks it) and the rules matched still the gate's: a set replaced
// meanwhile (AddRule) is matched again.
//
// Matching a call's values is the one part of a decision whose cost
// grows with what the caller sent (a long path against many rules). Held
// under the read lock, it would hold back every writer (RecordDecision
// after a person's decision, a grant, /mode), and, as a waiting writer
// holds back new readers, every other call's decision behind it.
func (g *Gate) matchRules(c Call) ruleMatch {
	g.mu.RLock()
	for {
		rs, servers := g.rules, g.servers
		g.mu.RUnlock()
		if matchHook != nil {
			matchHook(c)
		}
		r, ok := rs.decide(c, servers)
		g.mu.RLock()
		// newRuleSet makes a new list of the rules for every tool for
		// every set: it tells a set apart.
		if g.rules.any == rs.any {
			return ruleMatch{rule: r, ok: ok}
		}
	}
}

// matchHook, when set (only tests set it), is called as a call's rules
// are about to be matched: a test holds a call there to show what goes
// on meanwhile.
var matchHook func(Call)
