//go:build unix

package session

import "syscall"

// benchCPU is the CPU time (user and system) the process used so far, in
// seconds.
func benchCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
