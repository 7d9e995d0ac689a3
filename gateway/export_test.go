package gateway

import "time"

// SetNotifyTimeout bounds each run of g's notify_command by d (tests:
// a hanging command is killed without waiting the 10 s).
func SetNotifyTimeout(g *Gateway, d time.Duration) {
	if g.notify != nil {
		g.notify.timeout = d
	}
}

// PlainCalls is how many stdio calls g answered without mcp-go's stdio
// server (stdiofast.go).
func PlainCalls(g *Gateway) int64 { return g.plainRuns.Load() }
