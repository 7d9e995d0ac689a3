package cli

import (
	"fmt"
	"io"

	"latch/gateway"
)

// logResumed says how many of the calls an earlier run of the gateway
// parked still wait for a person, now that this run took them up; nothing
// when none does.
func logResumed(w io.Writer, asJSON bool, id string, waiting int) {
	if waiting == 0 {
		return
	}
	what := "1 parked call waits"
	if waiting != 1 {
		what = fmt.Sprintf("%d parked calls wait", waiting)
	}
	gateway.LogEvent(w, asJSON, "resume", fmt.Sprintf("session %s resumed: %s for a decision (latch approvals)", id, what),
		map[string]any{"session": id, "waiting": waiting})
}
