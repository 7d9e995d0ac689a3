//go:build !unix

package eventlog

// cpuTime is not measured here: the benchmarks report 0.
func cpuTime() float64 { return 0 }
