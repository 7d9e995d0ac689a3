//go:build !latchtest

package cli

// testProfiles does nothing in a release build: the profiles of
// testprofile.go (built with the latchtest tag) do not exist here, and
// $LATCH_TEST_PROFILE_DIR is not read.
func testProfiles(func(string) string) func() { return func() {} }
