package cli

import (
	"fmt"
	"strings"

	"latch/permissions"
	"latch/session"
	"latch/ui"
	"latch/ui/sanitize"
)

// How latch approve, latch reject and latch approvals show a call's
// arguments: every key, long values elided in their middle with the count
// left out, paths and the values a rule looks at whole (ui.ArgLines);
// --full shows every value whole.

// rulesGate is a gate of the config's rules, for argsView and
// ruleNotices: made once a listing.
func rulesGate(s *settings) *permissions.Gate { return permissions.NewGate(s.policy()) }

// argsView is how a parked call's arguments are shown: whole where the
// rules of g about its tool look at them, or everywhere with full.
func argsView(g *permissions.Gate, p session.ParkedCall, full bool) ui.ArgView {
	name := p.Tool
	c := permissions.Call{Server: p.Server, Tool: strings.TrimPrefix(name, p.Server+permissions.NamespaceSep), Name: name}
	return ui.ArgView{Whole: g.ArgsLookedAt(c), Full: full}
}

// writeArgsBlock writes the arguments of a call being decided, under a
// line that counts its keys and what is elided, and says how to see
// every value whole.
func writeArgsBlock(b *strings.Builder, p session.ParkedCall, view ui.ArgView) {
	lines, elided := ui.ArgLines(p.Arguments, view)
	n := len(p.Arguments)
	head := fmt.Sprintf("%d keys", n)
	if n == 1 {
		head = "1 key"
	}
	if elided > 0 {
		head += fmt.Sprintf(", %d elided in the middle (latch approve %s --full shows every value whole)", elided, sanitize.Line(p.CallID))
	}
	fmt.Fprintf(b, "  arguments  %s\n", head)
	for _, l := range lines {
		b.WriteString("    " + l + "\n")
	}
}

// listedArgs is a call's arguments on one line of latch approvals: every
// key, values elided sooner, or every value whole with full.
func listedArgs(g *permissions.Gate, p session.ParkedCall, full bool) string {
	return ui.ArgLine(p.Arguments, argsView(g, p, full))
}
