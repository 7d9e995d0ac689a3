//go:build !unix

package gateway_test

import "time"

// processCPU is unknown here: cpu-µs/call reads 0.
func processCPU() time.Duration { return 0 }
