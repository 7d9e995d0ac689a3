package cli

import (
	"fmt"

	"latch/session"
	"latch/ui/sanitize"
)

// elicitLine says on stderr that a server asked for input and latch
// declined it, there being no one to ask with -p.
func (p *printer) elicitLine(e session.Event) {
	if a, ok := session.Display(e).(*session.ElicitationAnswerEvent); ok && a.By == "policy" {
		fmt.Fprintf(p.stderr, "latch: MCP server %s asked for input (%s): declined: %s\n",
			sanitize.Line(a.Server), sanitize.Line(a.Mode), sanitize.Line(a.Reason))
	}
}
