package cli

import (
	"fmt"

	"latch/session"
	"latch/ui/sanitize"
)

// sampling writes a line on stderr when a server's sampling request is
// decided: denied (with why), or answered and sent. ev is display-safe;
// other events write nothing here.
func (p *printer) sampling(ev session.Event) {
	e, ok := ev.(*session.SamplingEvent)
	if !ok || p.asJSON {
		return
	}
	server := sanitize.Line(e.Server)
	switch e.Step {
	case session.SamplingDenied, session.SamplingRefused, session.SamplingFailed:
		fmt.Fprintf(p.stderr, "latch: sampling request of %s %s: %s\n", server, e.Step, sanitize.Line(e.Reason))
	case session.SamplingSent:
		fmt.Fprintf(p.stderr, "latch: sampling request of %s answered by the model and sent\n", server)
	}
}
