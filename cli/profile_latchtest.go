//go:build latchtest

package cli

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// serveProfile, in a build with the latchtest tag, writes a CPU profile
// of latch serve to $LATCH_TEST_CPUPROFILE.PID, and its block and mutex
// profiles to .block.PID and .mutex.PID, (one file per process, so
// a benchmark's several gateways each leave theirs) until the returned
// stop is called: how the gateway's time per call is found (docs/
// DEVELOPING.md). Without the variable it does nothing; a release build
// has none of it (profile_release.go).
func serveProfile() (stop func()) {
	path := os.Getenv("LATCH_TEST_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", path, os.Getpid()))
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return func() {}
	}
	// Where goroutines wait (channels, selects, locks) and which locks
	// are contended, beside where the CPU goes.
	runtime.SetBlockProfileRate(int(10 * time.Microsecond))
	runtime.SetMutexProfileFraction(5)
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
		for _, name := range []string{"block", "mutex"} {
			if w, err := os.Create(fmt.Sprintf("%s.%s.%d", path, name, os.Getpid())); err == nil {
				_ = pprof.Lookup(name).WriteTo(w, 0)
				_ = w.Close()
			}
		}
	}
}
