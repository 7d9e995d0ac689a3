package permissions

import "slices"

// ArgNames returns the argument names r looks at, sorted; AnyArg among
// them when it looks at every string argument.
func (r Rule) ArgNames() []string {
	out := make([]string, 0, len(r.args))
	for _, a := range r.args {
		out = append(out, a.name)
	}
	return out
}

// ArgsLookedAt returns the names of the arguments that the gate's rules
// about c's tool look at, sorted, without AnyArg: the values an approval
// screen shows whole, since a rule decided (or may decide) on them. A "*"
// rule looks at every string, of which the screens show the path-like ones
// whole (PathLike).
func (g *Gate) ArgsLookedAt(c Call) []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	rs := &g.rules
	var out []string
	rs.candidates(c, func(l *ruleList) {
		if l == nil {
			return
		}
		for _, i := range l.all {
			if !rs.rules[i].covers(c, g.servers) {
				continue
			}
			for _, a := range rs.rules[i].args {
				if a.name != AnyArg {
					out = append(out, a.name)
				}
			}
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}
