//go:build !latchtest

package cli

// serveProfile does nothing in a release build: the CPU profile of
// profile_latchtest.go exists only with the latchtest tag.
func serveProfile() (stop func()) { return func() {} }
