//go:build !unix

package cli

import (
	"os"
	"time"
)

// ttyName is the console's input.
const ttyName = "CONIN$"

// querySync is not asked here: frames are drawn without synchronized
// output.
func querySync(_, _ *os.File, _ time.Duration) bool { return false }
