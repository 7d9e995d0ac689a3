//go:build !latchtest

package session

// crashPoint is never set in a release build: the crash points of the tests
// (crash.go, built with the latchtest tag) do not exist here, and
// $LATCH_TEST_CRASH_AT is not read.
const crashPoint = ""

// crashAt does nothing in a release build.
func crashAt(string) {}
