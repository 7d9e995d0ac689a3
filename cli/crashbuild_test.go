package cli

import (
	"bytes"
	"latch/mcp/mcptestutil"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// crashPointStrings are what the crash points (session/crash.go) put into a
// binary: the variable that arms them and the points' names.
var crashPointStrings = []string{"LATCH_TEST_CRASH_AT", "LATCH_TEST_CRASH_AFTER_LINES", "before-decision", "after-decision", "during-call", "after-result"}

// TestCrashPointsAreNotInTheReleaseBuild: the crash points exist only in a
// build with the latchtest tag (the one the tests run, see latchBinary). A
// release build (`go build`, `make build`) has no trace of them, so no
// environment variable can make a user's latch kill itself.
func TestCrashPointsAreNotInTheReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds latch")
	}
	t.Parallel()
	release := filepath.Join(t.TempDir(), "latch")
	build := exec.Command("go", "build", "-o", release, ".")
	build.Dir = mcptestutil.ModuleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bin, err := os.ReadFile(release)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range crashPointStrings {
		if bytes.Contains(bin, []byte(s)) {
			t.Errorf("the release build holds %q: the crash points ship", s)
		}
	}

	// The check can see them: the test build has them.
	test, err := os.ReadFile(latchBinary(t, mcptestutil.RaceEnabled))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(test, []byte("LATCH_TEST_CRASH_AT")) {
		t.Error("the test build (latchBinary) has no crash points: the crash tests would test nothing")
	}
}
