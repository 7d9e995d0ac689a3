//go:build latchtest

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"
)

// testProfiles, in a build with the latchtest tag (as the tests build the
// binary), writes profiles of the process into a folder of its own, named
// by its pid, in $LATCH_TEST_PROFILE_DIR when it is set (a benchmark's
// several processes each leave theirs), for finding where start-up time,
// memory and a gateway's time per call go (make bench's workloads;
// docs/ARCHITECTURE.md "Start-up and memory", docs/DEVELOPING.md):
//
//	cpu.pprof        CPU from Run's start to its end
//	block.pprof      where goroutines waited (channels, selects, locks)
//	mutex.pprof      which locks were contended
//	heap-peak.pprof  the heap profile when the heap's objects were largest
//	                 (sampled every 10 ms, a GC run first: what was live)
//	heap-exit.pprof  the heap profile when Run returns
//	metrics.txt      runtime/metrics' memory classes at the peak and at
//	                 exit, and /proc/self/status's VmHWM, RssAnon, RssFile
//
// The returned func, deferred by Run, stops and writes them. A release
// build has testprofile_release.go instead, which reads no variable.
func testProfiles(getenv func(string) string) func() {
	dir := getenv("LATCH_TEST_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	dir = filepath.Join(dir, strconv.Itoa(os.Getpid()))
	if os.MkdirAll(dir, 0o700) != nil {
		return func() {}
	}
	runtime.SetBlockProfileRate(int(10 * time.Microsecond))
	runtime.SetMutexProfileFraction(5)
	if runtime.MemProfileRate == 512<<10 {
		// Finer than the default. GODEBUG=memprofilerate=N sets it from
		// the process's start, which the heap profiles need to show what
		// the packages' init functions keep.
		runtime.MemProfileRate = 4096
	}
	cpu, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err == nil {
		runtime.SetCPUProfileRate(1000)
		if pprof.StartCPUProfile(cpu) != nil {
			cpu.Close()
			cpu = nil
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var peakReport string
	wg.Add(1)
	go func() {
		defer wg.Done()
		var peak uint64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak+256<<10 {
				peak = v
				peakReport = memReport()
				// What is live now, not as of the last GC: this run's
				// memory is changed by it, so measure in another.
				runtime.GC()
				writeHeap(filepath.Join(dir, "heap-peak.pprof"))
			}
		}
	}()
	return func() {
		close(stop)
		wg.Wait()
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		for _, name := range []string{"block", "mutex"} {
			if f, err := os.Create(filepath.Join(dir, name+".pprof")); err == nil {
				_ = pprof.Lookup(name).WriteTo(f, 0)
				_ = f.Close()
			}
		}
		writeHeap(filepath.Join(dir, "heap-exit.pprof"))
		out := "at the heap's peak:\n" + peakReport + "\nat exit:\n" + memReport()
		_ = os.WriteFile(filepath.Join(dir, "metrics.txt"), []byte(out), 0o600)
	}
}

func writeHeap(path string) {
	if f, err := os.Create(path); err == nil {
		_ = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}

// memReport is runtime/metrics' memory classes and the process's RSS.
func memReport() string {
	var b strings.Builder
	var s []metrics.Sample
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") || d.Name == "/gc/heap/goal:bytes" ||
			d.Name == "/gc/cycles/total:gc-cycles" || d.Name == "/gc/heap/allocs:bytes" {
			s = append(s, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(s)
	for _, x := range s {
		switch {
		case x.Value.Kind() != metrics.KindUint64:
		case strings.HasSuffix(x.Name, ":bytes"):
			fmt.Fprintf(&b, "%-50s %10.2f MB\n", x.Name, float64(x.Value.Uint64())/1e6)
		default:
			fmt.Fprintf(&b, "%-50s %10d\n", x.Name, x.Value.Uint64())
		}
	}
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(st), "\n") {
			for _, k := range []string{"VmHWM", "VmRSS", "RssAnon", "RssFile"} {
				if strings.HasPrefix(line, k+":") {
					b.WriteString(line + "\n")
				}
			}
		}
	}
	return b.String()
}
