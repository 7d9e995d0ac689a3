//go:build !latchtest

package eventlog

// crashAfter does nothing in a release build: the test crash of
// crash.go (latchtest tag) does not exist here.
func crashAfter(int) {}
