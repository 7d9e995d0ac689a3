//go:build unix

package gateway_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used (user and system):
// per call, what the calls cost the client and latch (and an in-process
// upstream), which a loaded machine changes less than calls/s.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
