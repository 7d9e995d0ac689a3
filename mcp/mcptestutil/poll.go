package mcptestutil

import (
	"runtime/debug"
	"testing"
	"time"
)

// Eventually polls cond every few milliseconds until it holds or d has
// passed, and reports whether it held. It is the one polling helper of
// latch's tests.
func Eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// WaitFor is Eventually that fails tb, naming what it waited for. d is
// a hang's bound, not a measure: it is at least HangBound's.
func WaitFor(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	d = HangBound(d)
	if !Eventually(d, cond) {
		tb.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

// HangBound is the longest a test waits for something that must come
// before it fails: d, or a minute when d is less. The deadlines the
// tests name (a few seconds) hold on a quiet machine; under -race on two
// cores busy with other packages' tests they do not, and a wait that
// ends on the event costs nothing more when the bound is longer. Waits
// whose deadline passing is the expected outcome (nothing more comes)
// keep their own.
func HangBound(d time.Duration) time.Duration {
	return max(d, time.Minute)
}

// RaceEnabled says the test binary runs under the race detector, which
// makes everything several times slower.
var RaceEnabled = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}()
