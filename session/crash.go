//go:build latchtest

package session

import "os"

// crashPoint, from $LATCH_TEST_CRASH_AT, makes the process kill itself
// (SIGKILL on Unix) at one named point of a tool call, so that crash tests
// can prove no decision is lost and no call runs twice. The points:
//
//	before-decision  a person decided; the decision is not yet on disk
//	after-decision   the decision is on disk; the call has not started
//	during-call      the call was sent to the server; no result yet
//	after-result     the result is on disk; the model has not seen it
//	task-ended       a call run as a task: the task's end is on disk; its
//	                 result is not
//
// They exist only in a build with the latchtest tag (`go build -tags
// latchtest`, as the tests build the binary: latchBinary in pty_test.go). A
// release build has crash_release.go instead, where they do nothing and
// the variable is never read.
var crashPoint = os.Getenv("LATCH_TEST_CRASH_AT")

func crashAt(point string) {
	if crashPoint != point {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
	select {} // the kill arrives
}
