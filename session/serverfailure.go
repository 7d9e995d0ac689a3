package session

import (
	"fmt"
	"strings"

	"latch/ui/sanitize"
)

// Failure is what a failed or lost server is said to be, in the chat and
// on -p's stderr alike: its state and reason, the exit status when the
// reason lacks it, and the last lines the server wrote on stderr (often
// the only words saying why). Call it on a display copy (Display).
func (e *ServerStatusEvent) Failure() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %s %s", sanitize.Line(e.Server), e.Summary)
	if e.ExitStatus != "" && !strings.Contains(e.Summary, e.ExitStatus) {
		fmt.Fprintf(&b, " (%s)", e.ExitStatus)
	}
	if len(e.StderrTail) > 0 {
		b.WriteString("\nlast stderr lines:")
		for _, l := range e.StderrTail {
			b.WriteString("\n  " + l)
		}
	}
	return b.String()
}
