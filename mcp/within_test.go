package mcp

import (
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// endsWithin runs f and fails the test when it has not returned within
// the hang bound. It measures nothing: the tests that use it make every
// other way out (a server's own exit, a timeout of their configuration)
// far longer than the bound, so that f returning at all shows which way
// ended it.
func endsWithin(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatalf("%s did not return within %s", what, mcptestutil.HangBound(0))
	}
}

// neverTimeout is a request or connect timeout far beyond the hang
// bound: a wait that ends within the bound was not ended by it.
var neverTimeout = time.Hour
