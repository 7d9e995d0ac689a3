//go:build !unix

package session

// benchCPU is not measured here: the benchmarks report 0.
func benchCPU() float64 { return 0 }
