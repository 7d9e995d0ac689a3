package cli

import (
	"fmt"

	"latch/ui/sanitize"
)

// exitLine is what latch says on the normal screen when the screen ends:
// the session's id and how to resume it, and how many calls wait for
// approval. A session with no message in it (nothing to resume) and no
// call waiting gets none.
//
// It goes to stdout, where the screen was: it is the program's last
// output, not an error, and follows the screen's restore in order.
func exitLine(id string, hasMessages bool, waiting int) string {
	if !hasMessages && waiting == 0 {
		return ""
	}
	id = sanitize.Line(id)
	line := fmt.Sprintf("session %s · resume with: latch --resume %s", id, id)
	switch {
	case waiting == 1:
		line += " · 1 call waits for approval"
	case waiting > 1:
		line += fmt.Sprintf(" · %d calls wait for approval", waiting)
	}
	return line
}
