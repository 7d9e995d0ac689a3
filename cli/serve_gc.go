package cli

import "runtime/debug"

// The garbage collector of latch serve. Each call through the gateway
// allocates its JSON several times over (mcp-go reads and writes it on
// both sides, the session log writes it once more) and keeps almost none
// of it, so at Go's default (GOGC=100: collect each time the heap doubles)
// the collector ran about once every few dozen calls and took a tenth of
// the gateway's CPU. The gateway lets the heap grow to five times what is
// live instead, up to a soft limit past which the runtime collects as
// often as it must to stay near it.
const (
	serveGCPercent   = 400
	serveMemoryLimit = 512 << 20 // bytes
)

// tuneServeGC sets the collector of latch serve (above), unless the
// person set GOGC or GOMEMLIMIT, which then rule as the Go runtime has
// them.
func tuneServeGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
}
