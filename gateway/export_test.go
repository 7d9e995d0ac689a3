package gateway

import "time"

// SetNotifyTimeout bounds each run of g's notify_command by d (tests:
// a hanging command is killed without waiting the 10 s).
func SetNotifyTimeout(g *Gateway, d time.Duration) {
	if g.notify != nil {
		g.notify.timeout = d
	}
}
