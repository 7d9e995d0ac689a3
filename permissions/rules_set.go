package permissions

import "strings"

// ruleSet holds a gate's argument rules, indexed by the tool they are
// about, so that a call is matched only against the rules that could
// cover it, and within a tool by what their values must start or end
// with (rules_index.go), so that a call is matched only against the rules
// whose patterns could match its values.
type ruleSet struct {
	rules  []Rule
	home   string                          // expands "~" in a call's values
	fold   bool                            // paths compare case-folded
	server map[string]map[string]*ruleList // a server's rules: server → its tool name or "*" → its rules
	named  map[string]*ruleList            // global rules with a namespaced name
	any    *ruleList                       // global rules for "*"
}

func newRuleSet(rules []Rule, home string, fold bool) ruleSet {
	rs := ruleSet{rules: append([]Rule(nil), rules...), home: nfc(strings.ReplaceAll(home, `\`, "/")), fold: fold,
		server: map[string]map[string]*ruleList{}, named: map[string]*ruleList{}, any: &ruleList{}}
	if fold {
		for i := range rs.rules {
			rs.rules[i].args = foldedArgs(rs.rules[i].args)
		}
	}
	for i, r := range rs.rules {
		switch {
		case r.Server != "":
			if rs.server[r.Server] == nil {
				rs.server[r.Server] = map[string]*ruleList{}
			}
			rs.server[r.Server][r.Spec.Tool] = rs.server[r.Server][r.Spec.Tool].with(i)
		case r.Spec.Tool == "*":
			rs.any = rs.any.with(i)
		default:
			rs.named[r.Spec.Tool] = rs.named[r.Spec.Tool].with(i)
		}
	}
	for _, l := range rs.lists() {
		l.index(rs.rules)
	}
	return rs
}

// lists are every list of rules of the set.
func (rs *ruleSet) lists() []*ruleList {
	out := []*ruleList{rs.any}
	for _, byTool := range rs.server {
		for _, l := range byTool {
			out = append(out, l)
		}
	}
	for _, l := range rs.named {
		out = append(out, l)
	}
	return out
}

// severity orders rule decisions: deny over ask over allow.
func severity(d Decision) int {
	switch d {
	case Deny:
		return 3
	case AskUser:
		return 2
	case Allow:
		return 1
	}
	return 0
}

// decide returns the rule that decides c, if any: of the rules that
// cover c's tool and match its arguments, the first (in the order they
// were given) of the most severe decision — deny over ask over allow,
// whatever the order.
func (rs *ruleSet) decide(c Call, servers []string) (*Rule, bool) {
	if len(rs.rules) == 0 {
		return nil, false
	}
	v := newCallValues(c, rs.home, rs.fold)
	best := -1
	// The rules of one list are about the same tool, so whether they
	// cover c is asked of the first only.
	try := func(l *ruleList) {
		if l == nil || len(l.all) == 0 || !rs.rules[l.all[0]].covers(c, servers) {
			return
		}
		for _, i := range l.candidates(v) {
			r := &rs.rules[i]
			if best >= 0 {
				b := &rs.rules[best]
				if s, bs := severity(r.Decision), severity(b.Decision); s < bs || (s == bs && i > best) {
					continue // could not change the outcome
				}
			}
			if r.matches(v) {
				best = i
			}
		}
	}
	rs.candidates(c, try)
	if best < 0 {
		return nil, false
	}
	return &rs.rules[best], true
}

// candidates calls try with each list of rules that could cover c: its
// server's rules for its tool and for "*", the global rules naming it,
// and the global "*" ones.
func (rs *ruleSet) candidates(c Call, try func(*ruleList)) {
	if c.Server != "" {
		byTool := rs.server[c.Server]
		try(byTool[c.Tool])
		try(byTool["*"])
		prefix := c.Server + NamespaceSep
		try(rs.named[prefix+c.Tool])
		if c.Name != prefix+c.Tool {
			try(rs.named[c.Name])
		}
	}
	try(rs.any)
}

// MayAsk reports whether an ask rule covers c's tool, whatever the
// arguments: some call of it may be put to a person (latch serve then
// serves it as a tool whose calls may park).
func (g *Gate) MayAsk(c Call) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	rs := &g.rules
	may := false
	rs.candidates(c, func(l *ruleList) {
		if l == nil || len(l.all) == 0 || may || !rs.rules[l.all[0]].covers(c, g.servers) {
			return
		}
		for _, i := range l.all {
			may = may || rs.rules[i].Decision == AskUser
		}
	})
	return may
}

// Rules returns the gate's argument rules, in the order they were given.
func (g *Gate) Rules() []Rule {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return append([]Rule(nil), g.rules.rules...)
}

// Home is the folder a leading "~" stands for, in rules and in calls.
func (g *Gate) Home() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.rules.home
}
