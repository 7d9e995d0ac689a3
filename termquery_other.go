//go:build !unix

package main

import (
	"os"
	"time"
)

// querySync is not asked here: frames are drawn without synchronized
// output.
func querySync(_, _ *os.File, _ time.Duration) bool { return false }
