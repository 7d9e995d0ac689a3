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
func querySync(_, _ *os.File, _ time.Duration) (ok bool, typed []byte) { return false, nil }

// queryBackground reads $COLORFGBG: the console is not asked.
func queryBackground(_, _ *os.File, _ time.Duration, getenv func(string) string) (dark bool, typed []byte) {
	return darkFGBG(getenv("COLORFGBG")), nil
}
