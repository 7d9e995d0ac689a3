//go:build latchtest

package eventlog

import (
	"os"
	"strconv"
)

// crashAfterLines, from $LATCH_TEST_CRASH_AFTER_LINES, makes the process
// kill itself (SIGKILL) once that many lines were written to a log, right
// after the write that reached it and before its sync: the crash test
// samples N over a whole run of calls, so that the kill lands at many
// points in time, not only at chosen steps (session/crash.go has those).
// It exists only in a build with the latchtest tag; crash_release.go has
// none.
var crashAfterLines, _ = strconv.Atoi(os.Getenv("LATCH_TEST_CRASH_AFTER_LINES"))

// crashAfter kills the process when lines reached crashAfterLines.
func crashAfter(lines int) {
	if crashAfterLines <= 0 || lines < crashAfterLines {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {} // the kill arrives
}
